// The text part made from a message's HTML where the sender gave none (core/content/text-alternative.ts):
// a template of the same language, so its substitutions, directives and template links stay for
// the renderer; the sender's own text wins; an HTML whose text would not compile gets none.
import { compiledTemplate } from '../../core/content/dialect/dialect';
import { textPartOf } from '../../core/content/text-alternative';

it('keeps the sender\'s own text, and makes none without HTML', () => {
  expect(textPartOf({ html: '<p>Hi</p>', text: 'Own text' })).toBe('Own text');
  expect(textPartOf({ text: '' })).toBe('');
  expect(textPartOf({})).toBeUndefined();
});

it('turns the HTML into a text template: blocks as lines, links followed by their address, template links and directives kept', () => {
  const html = '<html><head><title>x</title><style>p{color:red}</style></head><body>'
    + '<h1>Hello ${contact.first_name!"friend"}</h1><p>Your order [#if order.paid]is paid[#else]waits[/#if].</p>'
    + '<p><a href="https://shop.example/o/${order.id}">Track it</a> &amp; <a href="${urls.unsubscribe}">unsubscribe</a></p></body></html>';
  const text = textPartOf({ html })!;
  expect(text).toBe('Hello ${contact.first_name!"friend"}\n\nYour order [#if order.paid]is paid[#else]waits[/#if].\n\n'
    + 'Track it (https://shop.example/o/${order.id}) & unsubscribe (${urls.unsubscribe})');
  const rendered = compiledTemplate(text, { escape: 'none' }).render({ contact: { first_name: 'Ada' }, order: { paid: true, id: 'A1' }, urls: { unsubscribe: 'https://h.example/t/u/x' } });
  expect(rendered).toBe('Hello Ada\n\nYour order is paid.\n\nTrack it (https://shop.example/o/A1) & unsubscribe (https://h.example/t/u/x)');
});

it('gives no text part for an HTML whose text would not compile, or that has no text', () => {
  const html = '<p>Total: ${order.total<limit}</p>'; // a comparison the text scan reads as a tag
  expect(() => compiledTemplate(html, { escape: 'html' })).not.toThrow();
  expect(textPartOf({ html })).toBeUndefined();
  expect(textPartOf({ html: '<img src="https://x.example/a.png">' })).toBeUndefined();
});
