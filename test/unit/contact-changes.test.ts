// The writes contact requests send: the one upsert that creates or updates by email, a new
// contact, and a partial update.
import { newContact, planUpdate, planUpsert, upsertNeedsStoredContact } from '../../core/contacts/changes';

const now = new Date('2026-01-02T03:04:05Z');

describe('planUpsert', () => {
  it('sets what the client gave, and everything else only when it creates the contact', () => {
    const { filter, update } = planUpsert('acme', 7, 3, { email: ' Ada@Example.COM ', firstName: 'Ada', gender: 'F' }, 'MANUAL', now);
    expect(filter).toEqual({ account: 'acme', email: 'ada@example.com' });
    expect(update).toEqual({
      $set: { firstName: 'Ada', gender: 'F', lastModified: now },
      $setOnInsert: {
        _id: 'acme:7', id: 7, source: 'MANUAL', state: 'ACTIVE', quality: 0, interests: [], customFields: {},
        created: now, lastMailed: null, lastAction: null, inactivated: null, lastName: '', language: '', preferredFormat: 'HTML',
      },
      $addToSet: { lists: 3 },
    });
  });

  it('replaces the lists when the client gives them (the list of the path included, once)', () => {
    const { update } = planUpsert('acme', 7, 3, { email: 'a@b.co', lists: [1, 3, 1] }, 'MANUAL', now);
    expect(update.$set).toMatchObject({ lists: [1, 3] });
    expect(update.$addToSet).toBeUndefined();
  });

  it('sets and clears one path per custom field (the last value given counts), never the whole object', () => {
    const { update } = planUpsert('acme', 7, 3, {
      email: 'a@b.co', customFields: [{ id: 10, value: '1' }, { id: 11, value: '' }, { id: 12, value: 'x' }, { id: 12, value: 'y' }, { id: 10, value: '' }],
    }, 'MANUAL', now);
    expect(update.$set).toEqual({ 'customFields.12': 'y', lastModified: now });
    expect(update.$unset).toEqual({ 'customFields.10': '', 'customFields.11': '' });
    expect(update.$setOnInsert).not.toHaveProperty('customFields');
  });
});

describe('upsertNeedsStoredContact', () => {
  it.each([
    [{ email: 'a@b.co' }, false],
    [{ email: 'a@b.co', customFields: [{ id: 10, value: 'x' }, { id: 11, value: '' }] }, false],
    [{ email: 'a@b.co', interests: [] }, true], // interests replace the contact's own, keeping their dates
    [{ email: 'a@b.co', customFields: [{ id: 10, value: '' }] }, true], // a new contact would get no customFields
  ])('%j: %s', (input, expected) => {
    expect(upsertNeedsStoredContact(input)).toBe(expected);
  });
});

describe('newContact', () => {
  it('is ACTIVE with the defaults, its references once each, and no empty custom values', () => {
    expect(newContact('acme', 5, { email: 'A@B.co', lastName: 'B', lists: [2, 2], interests: [1], customFields: [{ id: 10, value: '' }, { id: 11, value: '3' }] }, 'API', now))
      .toEqual({
        _id: 'acme:5', account: 'acme', id: 5, email: 'a@b.co', firstName: '', lastName: 'B', gender: '', language: '', preferredFormat: 'HTML',
        source: 'API', state: 'ACTIVE', quality: 0, lists: [2], interests: [{ id: 1, subscribed: now }], customFields: { 11: '3' },
        created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null,
      });
  });
});

describe('planUpdate', () => {
  it('keeps the date of interests kept, and writes a field given twice once (the last value)', () => {
    const contact = newContact('acme', 5, { email: 'a@b.co', interests: [1], customFields: [{ id: 10, value: '1' }] }, 'API', now);
    const { changes, update } = planUpdate(contact, { interests: [1, 2], customFields: [{ id: 10, value: '2' }, { id: 10, value: '' }] });
    expect(changes.interests).toEqual([{ id: 1, subscribed: now }, { id: 2, subscribed: expect.any(Date) }]);
    expect(changes.customFields).toEqual({});
    expect(update.$unset).toEqual({ 'customFields.10': '' });
    expect(update.$set).not.toHaveProperty('customFields.10');
  });
});
