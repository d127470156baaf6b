// '/automations/:id': an automation: its trigger, counts, activation, steps and runs.
import { useRoute } from 'preact-iso';
import { accountPath } from '../../api';
import { Details, Loading, Page, Section } from '../../components/page';
import { count, dateTime } from '../../format';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { Runs } from './runs';
import { Steps } from './steps';
import { ToggleAutomation } from './toggle';
import type { AutomationDetail } from './types';

const STATS: Array<[keyof AutomationDetail['stats'], string]> = [
  ['triggered', 'Triggered'], ['active', 'Running'], ['completed', 'Completed'], ['exited', 'Exited'], ['failed', 'Failed'],
];

export function AutomationPage() {
  const { params } = useRoute();
  const path = accountPath(`/automations/${encodeURIComponent(params.id)}`);
  const loaded = useApi<AutomationDetail>(path);
  const a = loaded.data;
  return (
    <Page title={a ? a.name : 'Automation'} actions={a && <ToggleAutomation id={a.id} name={a.name} enabled={a.enabled} onDone={loaded.reload} />}>
      <p><a href={to('/automations')}>← All automations</a></p>
      <Loading loading={loaded.loading} error={loaded.error}>
        {a && (
          <>
            <dl class="stats">
              {STATS.map(([key, label]) => <div class="stat" key={key}><dt>{label}</dt><dd>{count(a.stats[key])}</dd></div>)}
            </dl>
            {a.messageStats && (
              <Section title="Its messages">
                <Details items={[
                  ['Sent', count(a.messageStats.sent)], ['Opened (recipients)', count(a.messageStats.opened)], ['Clicked (recipients)', count(a.messageStats.clicked)],
                  ['Bounced', count(a.messageStats.bounced)], ['Unsubscribed', count(a.messageStats.unsubscribed)],
                ]} />
              </Section>
            )}
            <Section title="Automation">
              <Details items={[
                ['State', a.enabled ? 'Active' : 'Inactive'], ['Trigger', `${a.trigger.type} event with key ${a.trigger.key}`],
                ['Activations', count(a.activation)], ['Last activated', dateTime(a.activated)], ['Last deactivated', dateTime(a.deactivated)],
                ['Tags', a.tags.length ? a.tags.join(', ') : '—'], ['Comments', a.comments || '—'], ['Created', dateTime(a.created)],
              ]} />
            </Section>
            <Section title="Steps"><Steps steps={a.steps} /></Section>
            <Runs path={path} />
          </>
        )}
      </Loading>
    </Page>
  );
}
