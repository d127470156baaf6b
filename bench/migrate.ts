// `herald migrate` Herald to Herald (issue 38): a source account of HERALD_BENCH_MIGRATE_CONTACTS
// contacts (100,000 by default) in two lists, one interest, custom field values and 1,000
// suppressions, served by a source Herald on a store of its own; migrated into a target Herald's account at the command's
// default rate (10 requests per second), then run again twice with nothing changed. Beside it, in the
// same run and on the target's store: the same contacts imported from a CSV (POST /contacts/import,
// its task polled), the nearest thing Herald does with the same rows.
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import { createField } from '../core/contacts/fields';
import { createInterest } from '../core/contacts/interests';
import { createList } from '../core/contacts/lists';
import { runMigration } from '../core/migration/run';
import { suppressMany } from '../core/sending/suppressions';
import { fillContacts } from './contacts-fill';
import { startEmbeddedStore } from '../infra/store';
import { startBenchHerald, startBenchStack, type BenchHerald } from './herald-stack';
import { round } from './stats';
import { log, Teardown } from './support';

const CONTACTS = Number(process.env.HERALD_BENCH_MIGRATE_CONTACTS ?? 100_000);

export async function runMigrateBench(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    // Two Heralds, as moving in is: the source on a store of its own (its own Herald's answers
    // walk only its own contacts), the target on the stack's, both on the stack's Temporal with
    // task queues of their own (each worker runs its own Herald's tasks: the source's export).
    const stack = await startBenchStack('migrate', teardown, { storeFile: true });
    const sourceDir = teardown.tempDir('herald-bench-migrate-source-');
    const sourceStore = await startEmbeddedStore({ file: path.join(sourceDir, 'store.h2'), logFile: path.join(sourceDir, 'store.log') });
    teardown.defer('source store', () => sourceStore.stop());
    const sourceHerald = await startBenchHerald({ ...stack, store: sourceStore }, teardown, { taskQueue: 'herald-bench-source' });
    const targetHerald = await startBenchHerald(stack, teardown);
    const listen = async (herald: BenchHerald, name: string) => {
      const api = await herald.herald.apiServer();
      await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
      teardown.defer(`${name} api`, () => new Promise<void>((resolve) => { api.close(() => resolve()); }));
      return `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    };
    const baseUrl = await listen(sourceHerald, 'source');
    const targetUrl = await listen(targetHerald, 'target');
    const { store, account: source, apiKey } = sourceHerald;

    log(`migrate: filling the source with ${CONTACTS} contacts`);
    await createList(store, source, { name: 'Customers' });
    await createList(store, source, { name: 'Prospects', tags: ['b2b'] });
    const interest = await createInterest(store, source, { name: 'Running' });
    const city = await createField(store, source, { name: 'City' });
    await createField(store, source, { name: 'Points', format: 'INT' });
    await fillContacts(store, source, 0, CONTACTS);
    await store.contacts.updateMany({ account: source, id: { $mod: [5, 0] } }, { $set: { [`customFields.${city.id}`]: 'Lyon' }, $push: { interests: { id: interest.id, subscribed: new Date() } } });
    // The source's contacts last changed a minute ago (a re-run within 10 s of a change reads every contact: core/migration/contacts.ts).
    await store.contacts.updateMany({ account: source }, { $set: { lastModified: new Date(Date.now() - 60_000) } });
    await suppressMany(store, Array.from({ length: 1000 }, (_, i) => ({ account: source, email: `gone${i}@example.net`, reason: 'bounced' as const })));

    const target = targetHerald.account;
    const migrateOnce = async () => {
      const started = performance.now();
      const report = await runMigration({ store: targetHerald.store, source: { baseUrl, account: source, apiKey }, account: target });
      return { seconds: (performance.now() - started) / 1000, report };
    };
    log('migrate: first run');
    const first = await migrateOnce();
    log(`migrate: first run ${round(first.seconds)} s; again with nothing changed`);
    const again = await migrateOnce();
    log(`migrate: again ${round(again.seconds)} s; once more, the store past the first run's writes`);
    const later = await migrateOnce();
    const written = await targetHerald.store.contacts.countDocuments({ account: target });

    log('migrate: the same contacts imported from a CSV, beside it');
    const importer = await createAccount(targetHerald.store, `${source.slice(0, 20)}csv`);
    const csv = ['email,First name,City', ...Array.from({ length: CONTACTS }, (_, i) => `person${i}@${i % 10 === 0 ? 'example.org' : 'example.com'},P${i},${i % 5 === 0 ? 'Lyon' : ''}`)].join('\n');
    const headers = { authorization: `Bearer ${importer.apiKey}`, 'content-type': 'application/json' };
    await fetch(`${targetUrl}/v2/${importer.account}/lists`, { method: 'POST', headers, body: JSON.stringify({ name: 'Imported' }) });
    const importStarted = performance.now();
    const started = await (await fetch(`${targetUrl}/v2/${importer.account}/contacts/import`, { method: 'POST', headers, body: JSON.stringify({ sourceRaw: csv, list: 1 }) })).json() as { task?: { id: number } };
    if (!started.task) throw new Error(`the import did not start: ${JSON.stringify(started)}`);
    for (;;) {
      const task = (await (await fetch(`${targetUrl}/v2/${importer.account}/tasks/${started.task.id}`, { headers })).json() as { data: { state: string } }).data;
      if (task.state === 'FINISHED') break;
      if (['FAILED', 'CANCELLED'].includes(task.state)) throw new Error(`the import ended ${task.state}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const importSeconds = (performance.now() - importStarted) / 1000;

    return {
      scenario: 'migrate',
      contacts: CONTACTS,
      migrate_s: round(first.seconds),
      rerun_s: round(again.seconds),
      ratio_rerun_to_first: round(again.seconds / first.seconds, 3),
      rerun_again_s: round(later.seconds),
      ratio_rerun_again_to_first: round(later.seconds / first.seconds, 3),
      import_s: round(importSeconds),
      ratio_to_import: round(first.seconds / importSeconds),
      contacts_written: written,
      first_run: first.report.kinds,
      rerun: again.report.kinds,
      rerun_again: later.report.kinds,
      goal_migrate_met: first.seconds <= 120,
      goal_rerun_met: again.seconds <= 0.1 * first.seconds,
      goal_rerun_again_met: later.seconds <= 0.1 * first.seconds,
      notes: 'Herald to Herald over loopback HTTP at the default 10 requests per second, each Herald on its own store (an H2 file), one Temporal; the source filled straight through the store '
        + '(2 lists, 1 interest on a fifth of the contacts, a custom field value on a fifth, 1,000 suppressions); import_s = the same emails, names and city from a CSV '
        + '(POST /contacts/import with sourceRaw, the task polled every 100 ms) into a third account, after the migration',
    };
  } finally {
    await teardown.run();
  }
}
