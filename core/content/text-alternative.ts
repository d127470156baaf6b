// The text part of a message whose sender gave HTML only. Mailbox providers and spam filters count
// an HTML-only message against it (SpamAssassin's MIME_HTML_ONLY), and some readers want text: so
// every such message gets a multipart/alternative with a text/plain part made from its HTML
// template (./text-renderings.ts), itself a template of the same language, rendered per recipient
// like a text the sender wrote. Its links keep their own addresses (the HTML's are the tracked
// ones). Made once per distinct HTML, kept beside its compilations (the templates' cache: a
// request's or a campaign's content is planned again and again); an HTML whose text would not
// compile as a template (an expression cut by a tag) gets no text part rather than fail the send.
import { cachedCompile, compiledTemplate } from './dialect/dialect';
import { htmlToText } from './text-renderings';

/** The content's text part: its own, else one made from its HTML, else none. */
export function textPartOf(content: { html?: string; text?: string }): string | undefined {
  if (content.text !== undefined || content.html === undefined) return content.text;
  const { html } = content;
  return cachedCompile(html, 'text-alternative', () => ({ text: madeFrom(html) })).text;
}

function madeFrom(html: string): string | undefined {
  const text = htmlToText(html, { templateLinks: true });
  if (text === '') return undefined;
  try {
    compiledTemplate(text, { escape: 'none' });
    return text;
  } catch {
    return undefined;
  }
}
