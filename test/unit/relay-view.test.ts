// How a relay is shown to an account (core/relays/relay-view.ts): its state from the live leases,
// its counts summed, other accounts' names dropped and its URL reduced to a host.
import { relayView, stateOf, visibleTo } from '../../core/relays/relay-view';

const counts = (sent: number) => ({ sent, deferred: 0, failed: 0, trouble: 0 });

describe('stateOf', () => {
  it('is up when every lease says up, down when all say down, partly down when they disagree, unknown with none', () => {
    expect(stateOf([{ up: true }, { up: true }])).toBe('up');
    expect(stateOf([{ up: false }, { up: false }])).toBe('down');
    expect(stateOf([{ up: true }, { up: false }])).toBe('partly down');
    expect(stateOf([])).toBe('unknown');
  });
});

describe('relayView', () => {
  const relay = { name: 'shared', url: 'smtps://user:p%40ss@relay.example:465/path?token=x', accounts: ['acme', 'globex'], senderDomains: ['shop.example'] };

  it('keeps the account\'s own name only, the host without credentials, and sums the leases', () => {
    expect(relayView(relay, 'acme', [{ up: true, counts: counts(2) }, { up: false, counts: counts(3) }])).toEqual({
      name: 'shared', conditions: { accounts: ['acme'], senderDomains: ['shop.example'] }, maxConnections: 5,
      host: 'smtps://relay.example:465', state: 'partly down', counts: counts(5), workers: 2,
    });
  });

  it('is unknown, with zero counts, when no worker holds a live lease', () => {
    expect(relayView({ name: 'any', url: 'smtp://relay.example' }, 'acme', [])).toMatchObject({ conditions: {}, host: 'smtp://relay.example', state: 'unknown', workers: 0, counts: counts(0) });
  });

  it('is visible to the accounts it names, and to every account when it names none', () => {
    expect([visibleTo(relay, 'acme'), visibleTo(relay, 'initech'), visibleTo({ name: 'any', url: 'smtp://x' }, 'initech')]).toEqual([true, false, true]);
  });
});
