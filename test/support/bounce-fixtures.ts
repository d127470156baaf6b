// The bounce and complaint reports of test/fixtures/bounces, written after real MTAs' and
// feedback loops' reports, with their {{placeholders}} filled and CRLF line ends (as on the wire).
import fs from 'node:fs';
import path from 'node:path';

export type BounceFixture = 'postfix-hard' | 'postfix-delayed' | 'exchange-hard' | 'arf-abuse' | 'arf-headers-only' | 'auto-reply';

export interface FixtureValues {
  /** The message's envelope sender (Herald's return path). */
  return_path: string;
  /** The recipient the report is about. */
  recipient: string;
  /** The reported message's Message-ID, with its angle brackets. */
  message_id: string;
  /** Where the report is sent (a feedback loop's configured address). */
  report_to?: string;
}

export function bounceFixture(name: BounceFixture, values: FixtureValues): Buffer {
  const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'bounces', `${name}.eml`), 'utf8');
  const all: Record<string, string> = {
    ...values,
    report_to: values.report_to ?? values.return_path,
    recipient_local: values.recipient.slice(0, values.recipient.indexOf('@')),
    recipient_redacted: `redacted@${values.recipient.slice(values.recipient.indexOf('@') + 1)}`,
  };
  const filled = text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in all)) throw new Error(`fixture ${name}: no value for {{${key}}}`);
    return all[key];
  });
  return Buffer.from(filled.replace(/\r?\n/g, '\r\n'), 'utf8');
}
