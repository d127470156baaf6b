// A real IMAP server for the bounce mailbox tests: Dovecot (Debian's dovecot-imapd, installed by
// the setup step) with a configuration of its own in a temporary folder. It listens on 127.0.0.1
// only, imaps (TLS) on a free port with a throwaway certificate made with openssl, one
// passwd-file user, maildir in the temporary folder. Run as root (CI), its login and internal
// processes take Debian's dovenull/dovecot users and mail is stored as nobody; run as another
// user, everything runs as that user (Dovecot's rootless set-up). Messages arrive by IMAP APPEND.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { findExecutable } from '../../infra/executables';
import { freePort, waitForPort } from '../../infra/ports';

const execFileAsync = promisify(execFile);

export interface TestMailbox {
  host: string;
  port: number;
  user: string;
  password: string;
  /** imaps://user:password@127.0.0.1:port, as the relays file names it. */
  url: string;
  /** The certificate the server presents (self-signed): the CA a client must trust. */
  ca: Buffer;
  /** Delivers a raw message into `folder` (INBOX by default) by IMAP APPEND; resolves to its UID. */
  deliver(raw: Buffer, folder?: string): Promise<number>;
  /** The messages in `folder` with their flags and keywords (\Deleted ones included until expunged). */
  list(folder?: string): Promise<Array<{ uid: number; flags: string[] }>>;
  /** Dovecot's own log so far (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

function configText(dir: string, port: number, users: { login: string; internal: string; mailUid: number; mailGid: number }): string {
  return `# Written by test/support/dovecot.ts for one test file.
protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
default_login_user = ${users.login}
default_internal_user = ${users.internal}
first_valid_uid = ${Math.min(users.mailUid, 500)}
first_valid_gid = ${Math.min(users.mailGid, 500)}
ssl = required
ssl_cert = <${dir}/cert.pem
ssl_key = <${dir}/key.pem
auth_mechanisms = plain login
# A refused login answers at once (2 s by default): the wrong-password test need not wait.
auth_failure_delay = 0
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${users.mailUid} gid=${users.mailGid} home=${dir}/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    port = ${port}
    ssl = yes
  }
}
service anvil {
  chroot =
  # No auth penalty: a login after refused ones does not wait (4, 8, 15 s per client address).
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`;
}

/** The users Dovecot's processes run as: Debian's when started as root, this user's otherwise. */
function processUsers(): { login: string; internal: string; mailUid: number; mailGid: number } {
  const me = os.userInfo();
  if (me.uid !== 0) return { login: me.username, internal: me.username, mailUid: me.uid, mailGid: me.gid };
  return { login: 'dovenull', internal: 'dovecot', mailUid: 65534, mailGid: 65534 };
}

export async function startDovecot(): Promise<TestMailbox> {
  const dovecot = findExecutable('dovecot', ['/usr/sbin']);
  if (!dovecot) throw new Error('dovecot is not installed: the setup step installs it (Debian package dovecot-imapd), or run apt-get install dovecot-imapd');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-dovecot-'));
  // The unprivileged processes read the configuration's files and the mail user owns its home.
  fs.chmodSync(dir, 0o755);
  const users = processUsers();
  const user = 'bounces';
  const password = `pw-${Math.random().toString(36).slice(2, 12)}`;
  await execFileAsync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
  ]);
  fs.writeFileSync(path.join(dir, 'passwd'), `${user}:{PLAIN}${password}\n`, { mode: 0o644 });
  for (const sub of ['run', 'state', `home/${user}`]) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  fs.chownSync(path.join(dir, 'home', user), users.mailUid, users.mailGid);
  const port = await freePort();
  const conf = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(conf, configText(dir, port, users));
  const logFile = path.join(dir, 'dovecot.log');
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');

  let output = '';
  const child: ChildProcess = spawn(dovecot, ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([
      waitForPort('127.0.0.1', port, 15_000, 'dovecot'),
      exited.then(() => { throw new Error(`dovecot exited at start:\n${output}\n${log()}`); }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const ca = fs.readFileSync(path.join(dir, 'cert.pem'));

  async function withClient<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
    const client = new ImapFlow({
      host: '127.0.0.1', port, secure: true, auth: { user, pass: password }, logger: false, tls: { ca }, disableAutoIdle: true,
    });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  return {
    host: '127.0.0.1', port, user, password, ca,
    url: `imaps://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    deliver: (raw, folder = 'INBOX') => withClient(async (client) => {
      if (folder !== 'INBOX') await client.mailboxCreate(folder).catch(() => undefined);
      const appended = await client.append(folder, raw);
      if (!appended || appended.uid === undefined) throw new Error(`dovecot did not take the message into ${folder}`);
      return appended.uid;
    }),
    list: (folder = 'INBOX') => withClient(async (client) => {
      const lock = await client.getMailboxLock(folder);
      try {
        if (client.mailbox === false || client.mailbox.exists === 0) return [];
        const messages = await client.fetchAll('1:*', { uid: true, flags: true });
        return messages.map((m) => ({ uid: m.uid, flags: [...(m.flags ?? [])] }));
      } finally {
        lock.release();
      }
    }),
    log,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((resolve) => { timer = setTimeout(resolve, 5000); })]);
        clearTimeout(timer);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
