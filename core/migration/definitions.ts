// The definitions a migration brings first, since contacts and campaigns refer to them: custom
// fields, interests and lists, each read from the source's listing in id order and written through
// the same functions the API uses. Each element's Herald id is recorded (./mapping.ts) before it
// is created, under that very id, so a run killed midway never creates one twice; a re-run updates
// what changed at the source and leaves the rest.
import type { AccountApiClient } from '../../adapters/http/account-api-client';
import type { FieldDoc, FieldFormat, InterestDoc, ListDoc, Store } from '../../adapters/store/store';
import { nextId } from '../../adapters/store/counters';
import { AppError } from '../shared/errors';
import { BUILT_IN_FIELDS, createField, findCustomField, nextFieldId, updateField, type FieldInput } from '../contacts/fields';
import { createInterest, findInterest, updateInterest, type InterestInput } from '../contacts/interests';
import { createList, findList, updateList, type ListInput } from '../contacts/lists';
import { bringOver, digestOf, type MigrationMap } from './mapping';
import { count, emptyKind, skip, type KindReport } from './report';

export interface StepContext {
  store: Store;
  account: string;
  client: AccountApiClient;
  map: MigrationMap;
  /** Called after each page: elements done so far of the step, and the source's total when known. */
  progress(done: number, total: number | undefined): Promise<void>;
}

/** How one kind of definition is read and written. */
interface DefinitionKind<S extends { id: number }, I, T> {
  kind: string;
  namespace: string;
  /** What Herald writes for the source's element, or why it is left out. */
  inputOf(element: S): { input: I } | { skip: string } | { builtIn: number };
  reserveId(): Promise<number>;
  find(id: number): Promise<T | null>;
  create(input: I, id: number): Promise<void>;
  update(existing: T, input: I): Promise<void>;
}

const FORMATS: ReadonlySet<string> = new Set<FieldFormat>(['TEXT', 'INT', 'DATE']);

function fieldsKind(store: Store, account: string): DefinitionKind<{ id: number; name: string; tag?: string; format?: string; custom?: boolean }, FieldInput, FieldDoc> {
  return {
    kind: 'fields',
    namespace: 'fields',
    inputOf(field) {
      if (field.custom === false || field.id < 10) {
        const own = BUILT_IN_FIELDS.find((builtIn) => builtIn.id === field.id || builtIn.tag === field.tag?.toUpperCase());
        return own ? { builtIn: own.id } : { skip: `built-in field with no Herald equivalent (${field.name})` };
      }
      const format = (field.format ?? 'TEXT').toUpperCase();
      if (!FORMATS.has(format)) return { skip: `field format ${format} has no Herald equivalent` };
      return { input: { name: field.name, ...(field.tag ? { tag: field.tag } : {}), format: format as FieldFormat } };
    },
    reserveId: () => nextFieldId(store, account),
    find: (id) => findCustomField(store, account, id),
    create: async (input, id) => { await createField(store, account, input, id); },
    update: async (field, input) => { await updateField(store, field, { name: input.name, ...(input.tag ? { tag: input.tag } : {}) }); },
  };
}

function interestsKind(store: Store, account: string): DefinitionKind<{ id: number; name: string; description?: string; expirationDays?: number | string }, InterestInput, InterestDoc> {
  return {
    kind: 'interests',
    namespace: 'interests',
    inputOf: (interest) => ({
      input: { name: interest.name, description: interest.description ?? '', expirationDays: Number(interest.expirationDays ?? 0) || 0 },
    }),
    reserveId: () => nextId(store, account, 'interests'),
    find: (id) => findInterest(store, account, id),
    create: async (input, id) => { await createInterest(store, account, input, id); },
    update: async (interest, input) => { await updateInterest(store, interest, input); },
  };
}

function listsKind(store: Store, account: string): DefinitionKind<{ id: number; name: string; description?: string; tags?: string[] }, ListInput, ListDoc> {
  return {
    kind: 'lists',
    namespace: 'lists',
    inputOf: (list) => ({ input: { name: list.name, description: list.description ?? '', tags: Array.isArray(list.tags) ? list.tags.map(String) : [] } }),
    reserveId: () => nextId(store, account, 'lists'),
    find: (id) => findList(store, account, id),
    create: async (input, id) => { await createList(store, account, input, id); },
    update: async (list, input) => { await updateList(store, list, input); },
  };
}

/** Brings one kind over; returns what it did. */
async function migrateKind<S extends { id: number }, I, T>(context: StepContext, definition: DefinitionKind<S, I, T>): Promise<KindReport> {
  const report = emptyKind();
  for await (const page of context.client.pages<S>(definition.namespace, { pageSize: 1000, sortby: definition.kind === 'fields' ? 'id' : 'created' })) {
    const mapped = await context.map.lookup(definition.kind, page.items.map((element) => String(element.id)));
    for (const element of page.items) {
      report.read += 1;
      const sourceId = String(element.id);
      const wanted = definition.inputOf(element);
      if ('skip' in wanted) {
        skip(report, wanted.skip);
        continue;
      }
      if ('builtIn' in wanted) {
        if (mapped.get(sourceId)?.targetId !== wanted.builtIn) await context.map.put(definition.kind, [{ sourceId, targetId: wanted.builtIn }]);
        report.unchanged += 1;
        continue;
      }
      const { input } = wanted;
      try {
        count(report, await bringOver(context.map, mapped, definition.kind, sourceId, digestOf(input), {
          reserveId: () => definition.reserveId(),
          find: (id) => definition.find(id),
          create: (id) => definition.create(input, id),
          update: (existing) => definition.update(existing, input),
        }));
      } catch (error) {
        // Herald refused the element (a tag taken by a field of the account, the 200-field limit): left out, said why.
        if (error instanceof AppError) skip(report, error.message);
        else throw error;
      }
    }
    await context.progress(report.read, page.total);
  }
  return report;
}

export const migrateFields = (context: StepContext) => migrateKind(context, fieldsKind(context.store, context.account));
export const migrateInterests = (context: StepContext) => migrateKind(context, interestsKind(context.store, context.account));
export const migrateLists = (context: StepContext) => migrateKind(context, listsKind(context.store, context.account));
