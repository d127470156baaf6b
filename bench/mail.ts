// The sample content every mail scenario sends, so their rates compare.

/** ~15 KB of table-layout HTML, different for each message (built per message, as a real send is). */
export function sampleHtml(i: number): string {
  const rows: string[] = [];
  for (let r = 0; r < 68; r += 1) {
    rows.push(`<tr><td style="padding:8px 12px;font-family:Arial,sans-serif;font-size:14px;color:#333">` +
      `Line ${r} for recipient ${i}: your order has shipped and will arrive soon. <a href="https://example.test/o/${i}/${r}">Track it</a></td></tr>`);
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>Order ${i}</title></head>` +
    `<body><table width="600" cellpadding="0" cellspacing="0">${rows.join('\n')}</table></body></html>`;
}

export const recipientOf = (i: number) => `rcpt${i}@example.test`;

/** A single-recipient send of sampleHtml(i), as herald-send's clients post it. */
export function sendRequestBody(i: number): string {
  return JSON.stringify({
    from: { email: 'bench@herald.test', name: 'Bench' },
    subject: `Order ${i} shipped`,
    content: { html: sampleHtml(i) },
    recipients: [{ to: { email: recipientOf(i) } }],
  });
}

/** The trigger key of trigger-events' automation. */
export const BENCH_TRIGGER_KEY = 'bench_order_paid';

/** A custom trigger event for contact `i` (a new contact each: the run creates it), with a small context. */
export function triggerEventBody(i: number): string {
  return JSON.stringify({ trigger_key: BENCH_TRIGGER_KEY, contact: recipientOf(i), context: { order: { id: `B-${i}`, total: `${(i % 97) + 3}.50` } } });
}
