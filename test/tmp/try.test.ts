import { startDovecot } from '../support/dovecot';
it('runs', async () => {
  const m = await startDovecot();
  try {
    const uid = await m.deliver(Buffer.from('From: a@b.c\r\nSubject: hi\r\n\r\nbody\r\n'));
    console.log(uid, await m.list());
  } catch (e) { console.log(m.log()); throw e; } finally { await m.stop(); }
});
