// MIME built once, per-recipient parts spliced in: what a mail reader (mailparser) reads back.
import { simpleParser } from 'mailparser';
import { buildSkeleton } from '../../core/sending/mime-splice';

const copy = { to: 'ada@example.net', subject: 'Hello', messageId: '<m1@mx.test>' };

it('writes each copy\'s own headers, encoded, beside the shared ones, and never a Bcc', async () => {
  const skeleton = await buildSkeleton({ from: { name: 'Shöp', address: 'shop@example.com' }, replyTo: 'help@example.com', hasHtml: true, hasText: false });
  const raw = skeleton.build({
    ...copy, to: { name: 'Ada Lövelace', address: 'ada@example.net' }, cc: ['c@example.net', { name: 'D, x', address: 'd@example.net' }],
    subject: 'Grüße aus Köln, '.repeat(6).trim(), html: '<p>Hi</p>', headers: { 'X-Order': 'A-7 ünï' },
  });
  const mail = await simpleParser(raw);
  expect(mail.from?.value).toEqual([{ name: 'Shöp', address: 'shop@example.com' }]);
  expect(mail.replyTo?.value).toEqual([{ name: '', address: 'help@example.com' }]);
  expect(mail.to).toMatchObject({ value: [{ name: 'Ada Lövelace', address: 'ada@example.net' }] });
  expect(mail.cc).toMatchObject({ value: [{ address: 'c@example.net' }, { name: 'D, x', address: 'd@example.net' }] });
  expect(mail.subject).toBe('Grüße aus Köln, '.repeat(6).trim());
  expect(mail.messageId).toBe('<m1@mx.test>');
  expect(String(mail.html).trim()).toBe('<p>Hi</p>');
  expect(raw.toString()).not.toMatch(/^bcc:/im);
  expect(raw.toString()).not.toContain('HERALDSPLICE');
  // Every header line within the 78 characters MIME recommends (folded by nodemailer's encoder).
  const head = raw.toString().slice(0, raw.indexOf('\r\n\r\n'));
  expect(head.split('\r\n').every((line) => line.length <= 78)).toBe(true);
});

it('sends ASCII parts with short lines as they are, anything else base64, and both read back exactly', async () => {
  const skeleton = await buildSkeleton({ from: 'shop@example.com', hasHtml: true, hasText: true });
  const cases = [
    { html: '<p>plain\n.a dot at a line start</p>', text: 'plain', encodings: ['7bit', '7bit'] },
    { html: '<p>Straße</p>', text: 'Grüße', encodings: ['base64', 'base64'] },
    { html: `<p>${'x'.repeat(1200)}</p>`, text: 'short', encodings: ['base64', '7bit'] }, // a line past SMTP's 998 octets
  ];
  for (const { html, text, encodings } of cases) {
    const raw = skeleton.build({ ...copy, html, text });
    const mail = await simpleParser(raw);
    expect(mail.html).toBe(html);
    expect(mail.text).toBe(text);
    // The text part comes first in multipart/alternative, as nodemailer orders them.
    expect(raw.toString().match(/Content-Transfer-Encoding: (\w+)/g)!.map((h) => h.split(': ')[1])).toEqual([encodings[1], encodings[0]]);
  }
});

it('keeps the attachments composed once, in every copy', async () => {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 7)]);
  const skeleton = await buildSkeleton({
    from: 'shop@example.com', hasHtml: true, hasText: false,
    attachments: [{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' }],
  });
  for (const to of ['a@example.net', 'b@example.net']) {
    const mail = await simpleParser(skeleton.build({ ...copy, to, html: `<p>${to}</p>` }));
    expect(mail.html).toBe(`<p>${to}</p>`);
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.equals(pdf)])).toEqual([['invoice.pdf', 'application/pdf', true]]);
  }
});

it('splices a message that is a single part (its encoding header is among the shared ones); text alone in base64', async () => {
  const skeleton = await buildSkeleton({ from: 'shop@example.com', hasHtml: false, hasText: true });
  for (const text of ['just text', 'Ünïcode text']) {
    const raw = skeleton.build({ ...copy, text });
    expect((await simpleParser(raw)).text).toBe(text);
    expect(raw.toString()).toContain('Content-Transfer-Encoding: base64');
  }
});

it('sends an HTML part alone as it is when it can (a line end after it is only white space)', async () => {
  const skeleton = await buildSkeleton({ from: 'shop@example.com', hasHtml: true, hasText: false });
  const raw = skeleton.build({ ...copy, html: '<p>Hi</p>' });
  expect(raw.toString()).toMatch(/^Content-Transfer-Encoding: 7bit\r$/m);
  expect(raw.toString()).toMatch(/\r\n\r\n<p>Hi<\/p>\r\n$/);
  expect(String((await simpleParser(raw)).html).trim()).toBe('<p>Hi</p>');
});

it('composes a shape without attachments once: each skeleton is what nodemailer writes, with a boundary of its own and the Date of now', async () => {
  const shape = { from: { name: 'Shöp "Date: x"', address: 'shop@example.com' }, replyTo: 'help@example.com', hasHtml: true, hasText: true };
  const boundaryOf = (raw: Buffer) => /boundary="([^"]+)"/.exec(raw.toString())![1];
  const masked = (raw: Buffer) => raw.toString().split(boundaryOf(raw)).join('BOUNDARY').replace(/^Date: .*$/m, 'Date: DATE');
  const parts = { ...copy, html: '<p>Hi</p>', text: 'Hi' };
  const before = Date.now();
  const [first, second] = [(await buildSkeleton(shape)).build(parts), (await buildSkeleton(shape)).build(parts)];
  const after = Date.now();
  expect(boundaryOf(first)).not.toBe(boundaryOf(second));
  expect(masked(first)).toBe(masked(second));
  // The same as nodemailer composing it for this skeleton alone (a skeleton with its own Date is never shared).
  const own = (await buildSkeleton({ ...shape, date: new Date(before) })).build(parts);
  expect(masked(own)).toBe(masked(first));
  const date = (await simpleParser(first)).date!.getTime();
  expect(date).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  expect(date).toBeLessThanOrEqual(after);
});
