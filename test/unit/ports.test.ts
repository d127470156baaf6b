// npm start's own API and SMTP ports are never given to an embedded service: after a crash the OS
// may offer a port the dead process let go, and the next start then failed to listen on it.
import { pickUnreserved } from '../../infra/ports';

it('asks the OS again while it offers a reserved port', async () => {
  const offers = [33817, 44901, 44901, 40000];
  let asked = 0;
  const port = await pickUnreserved(async () => offers[asked++], new Set([33817, 44901]));
  expect(port).toBe(40000);
  expect(asked).toBe(4);
});

it('takes the first offer when nothing is reserved', async () => {
  await expect(pickUnreserved(async () => 41000, new Set())).resolves.toBe(41000);
});
