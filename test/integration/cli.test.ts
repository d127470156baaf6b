import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { hashKey } from '../../core/accounts/keys';
import { newId } from '../../core/shared/ids';

// Runs the installed bin (dist/ is built by `npm test` and by `npm ci`'s postinstall).
const bin = path.resolve(__dirname, '../../bin/herald.js');

function herald(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: 60000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('the herald command (accounts and users)', () => {
  const database = `herald_cli_${newId().slice(0, 8)}`;
  const env = { ...process.env, HERALD_MONGODB_DATABASE: database };
  let client: MongoClient;

  beforeAll(async () => {
    client = await MongoClient.connect(process.env.MONGODB_URI!);
  });
  afterAll(async () => {
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('prints exactly one JSON object with the account and its two keys, stored only as hashes', async () => {
    const result = await herald(['account', 'create', 'acme42'], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(Object.keys(created)).toEqual(['account', 'apiKey', 'transactionalKey']);
    expect(created.account).toBe('acme42');
    expect(created.apiKey).toMatch(/^acme42-[A-Za-z0-9]{32}$/);
    expect(created.transactionalKey).toMatch(/^acme42-tr-[A-Za-z0-9]{32}$/);

    const keys = await client.db(database).collection('keys').find({ account: 'acme42' }).toArray();
    expect(keys.map((k) => k._id).sort()).toEqual([hashKey(created.apiKey), hashKey(created.transactionalKey)].sort());
    expect(JSON.stringify(keys)).not.toContain(created.apiKey.slice(-20));
    expect(JSON.stringify(keys)).not.toContain(created.transactionalKey.slice(-20));
  });

  it('refuses a duplicate name with a clear message and a non-zero exit', async () => {
    await herald(['account', 'create', 'dupe1'], env);
    const again = await herald(['account', 'create', 'dupe1'], env);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('already exists');
  });

  // Refusals change nothing: their processes run at once.
  it.concurrent.each(['Acme', 'acme-shop', 'a_b', 'x'.repeat(41)])('refuses the invalid name %s', async (name) => {
    const result = await herald(['account', 'create', name], env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('lowercase letters and digits');
  });

  it('refuses the names of API paths (login, logout)', async () => {
    const result = await herald(['account', 'create', 'login'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('reserved');
  });

  it('creates a user with a password shown once and stored only as a scrypt hash', async () => {
    await herald(['account', 'create', 'users1'], env);
    const result = await herald(['user', 'create', 'users1', 'Ops@Example.com'], env);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toEqual({ account: 'users1', id: expect.any(Number), email: 'ops@example.com', password: expect.stringMatching(/^[A-Za-z0-9]{20}$/) });
    const stored = await client.db(database).collection('users').findOne({ account: 'users1', email: 'ops@example.com' });
    expect(stored!.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain(created.password);
    const { verifyPassword } = await import('../../core/accounts/passwords');
    expect(await verifyPassword(created.password, stored!.passwordHash)).toBe(true);
    const missing = await herald(['user', 'create', 'nosuchaccount', 'a@example.com'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No account');
  });

  it('explains its usage for an unknown command', async () => {
    const result = await herald(['frobnicate'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage');
  });

  it('sets and shows an account\'s sending policy, never its keys', async () => {
    const created = JSON.parse((await herald(['account', 'create', 'policy1'], env)).stdout);
    const shown = await herald(['account', 'show', 'policy1'], env);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ account: 'policy1', attachments: false, monthlyLimit: null, senderDomains: [], triggerHourlyLimit: 200, retentionDays: 45 });

    const set = await herald(['account', 'set', 'policy1', '--attachments', 'on', '--monthly-limit', '50000',
      '--sender-domain', 'Shop.Example.COM', '--sender-domain', 'news.example.com', '--sender-domain', 'shop.example.com', '--trigger-hourly-limit', '1000',
      '--retention-days', '90'], env);
    expect(set.code).toBe(0);
    const expected = {
      account: 'policy1', attachments: true, monthlyLimit: 50000, senderDomains: ['shop.example.com', 'news.example.com'], triggerHourlyLimit: 1000, retentionDays: 90,
    };
    expect(JSON.parse(set.stdout)).toEqual(expected);
    expect(JSON.parse((await herald(['account', 'show', 'policy1'], env)).stdout)).toEqual(expected);
    expect(shown.stdout + set.stdout).not.toContain(created.apiKey.slice(-20));
    expect(shown.stdout + set.stdout).not.toContain(created.transactionalKey.slice(-20));
    const doc = await client.db(database).collection('accounts').findOne({ _id: 'policy1' as never });
    expect(doc!.settings).toEqual({ attachments: true, monthlyLimit: 50000, senderDomains: ['shop.example.com', 'news.example.com'], triggerHourlyLimit: 1000, retentionDays: 90 });

    // Options not given stay; --sender-domain replaces the whole list.
    const replaced = await herald(['account', 'set', 'policy1', '--sender-domain', 'other.example'], env);
    expect(JSON.parse(replaced.stdout)).toEqual({ ...expected, senderDomains: ['other.example'] });
    const cleared = await herald(['account', 'set', 'policy1', '--no-sender-domains', '--monthly-limit', 'none', '--attachments', 'off', '--trigger-hourly-limit', '200',
      '--retention-days', '45'], env);
    const defaults = { account: 'policy1', attachments: false, monthlyLimit: null, senderDomains: [], triggerHourlyLimit: 200, retentionDays: 45 };
    expect(JSON.parse(cleared.stdout)).toEqual(defaults);
    expect(JSON.parse((await herald(['account', 'show', 'policy1'], env)).stdout)).toEqual(defaults);
  });

  it.concurrent.each([
    [['account', 'set', 'policy2'], 'at least one option'],
    [['account', 'set'], 'account name'],
    [['account', 'set', '--attachments', 'on'], 'account name'],
    [['account', 'set', 'Policy2', '--attachments', 'on'], 'not an account name'],
    [['account', 'set', 'policy2', '--attachments', 'yes'], '--attachments takes on or off'],
    [['account', 'set', 'policy2', '--attachments'], '--attachments needs a value'],
    [['account', 'set', 'policy2', '--attachments', 'on', '--attachments', 'off'], 'given twice'],
    [['account', 'set', 'policy2', '--monthly-limit', '-5'], 'whole number'],
    [['account', 'set', 'policy2', '--monthly-limit', '1.5'], 'whole number'],
    [['account', 'set', 'policy2', '--monthly-limit', 'lots'], 'whole number'],
    [['account', 'set', 'policy2', '--trigger-hourly-limit', '-1'], '--trigger-hourly-limit takes a whole number'],
    [['account', 'set', 'policy2', '--trigger-hourly-limit', 'none'], '--trigger-hourly-limit takes a whole number'],
    [['account', 'set', 'policy2', '--retention-days', '0'], '--retention-days takes a whole number of days from 7 to 3650'],
    [['account', 'set', 'policy2', '--retention-days', '6'], '--retention-days takes a whole number of days from 7 to 3650'],
    [['account', 'set', 'policy2', '--retention-days', '3651'], '--retention-days takes a whole number of days from 7 to 3650'],
    [['account', 'set', 'policy2', '--retention-days', '1.5'], '--retention-days takes a whole number of days from 7 to 3650'],
    [['account', 'set', 'policy2', '--retention-days'], '--retention-days needs a value'],
    [['account', 'set', 'policy2', '--sender-domain', 'user@example.com'], 'not a domain name'],
    [['account', 'set', 'policy2', '--sender-domain', 'localhost'], 'not a domain name'],
    [['account', 'set', 'policy2', '--sender-domain', '{"$ne":1}'], 'not a domain name'],
    [['account', 'set', 'policy2', '--sender-domain', 'a.example', '--no-sender-domains'], 'contradict'],
    [['account', 'set', 'policy2', '--frobnicate'], 'unknown option'],
    [['account', 'show', 'policy2', '--attachments', 'on'], 'only an account name'],
  ])('refuses %j with a usage error (exit 2)', async (args, message) => {
    const result = await herald(args, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('herald account set <name>');
  });

  it('reads its arguments before it loads the store\'s driver or the migration (a usage error answers at once)', async () => {
    // The modules loaded by the time the command exits, as the 'exit' hook sees them.
    const loaded = await new Promise<{ code: number; modules: string[] }>((resolve) => {
      const script = `process.on('exit', () => process.stdout.write(JSON.stringify(Object.keys(require.cache)))); process.argv.splice(1, 0, ${JSON.stringify(bin)}); require(${JSON.stringify(bin)});`;
      execFile(process.execPath, ['-e', script, 'account', 'set', 'policy2', '--retention-days', '3'], { env }, (error, stdout) => {
        resolve({ code: Number((error as { code?: number } | null)?.code ?? 0), modules: JSON.parse(stdout) as string[] });
      });
    });
    expect(loaded.code).toBe(2);
    expect(loaded.modules.some((file) => file.endsWith(`${path.sep}cli${path.sep}main.js`))).toBe(true);
    expect(loaded.modules.filter((file) => /node_modules[\\/](mongodb|@temporalio)[\\/]|[\\/](cli[\\/]commands|core[\\/]migration[\\/]run)\.js$/.test(file))).toEqual([]);
  });

  it('says so for the settings of an account that does not exist (exit 1)', async () => {
    for (const args of [['account', 'show', 'nosuch1'], ['account', 'set', 'nosuch1', '--attachments', 'on']]) {
      const result = await herald(args, env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('No account "nosuch1"');
    }
    expect(await client.db(database).collection('accounts').countDocuments({ _id: 'nosuch1' as never })).toBe(0);
  });

  it('without MONGODB_URI, opens the data folder\'s own embedded store (and it persists)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-cli-'));
    const local = { ...process.env, HERALD_DATA_DIR: dataDir, MONGODB_URI: '' };
    try {
      const first = await herald(['account', 'create', 'local1'], local);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout).account).toBe('local1');
      const second = await herald(['account', 'create', 'local1'], local);
      expect(second.stderr).toContain('already exists');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
