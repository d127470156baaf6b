// A campaign's content as the send engine takes it: a transactional send body (core/transactional/
// request.ts) whose HTML is the campaign's with its layout around it (the header links block, the
// unsubscribe footer) and whose tracking follows the campaign's options. Built once per plan; the
// renderer (core/content/personalise.ts) compiles it once and renders it per recipient.
import type { CampaignContentDoc, CampaignDoc } from '../../adapters/store/store';
import type { Address, SendRequestBody, TrackingOptions } from '../transactional/request';
import { DEFAULT_UNSUBSCRIBE_TEXT } from './model';

/**
 * The campaign-wide part of each recipient's model (`campaign`): what the layout prints, taken
 * from the model so the renderer escapes it like any value (HTML in the HTML part, nothing in the
 * text part), and a campaign's own text is never read as template syntax.
 */
export interface CampaignModel { subject: string; unsubscribe_text: string }

/** Whether option `key` is on: the stored value `1`. */
const optionOn = (options: Record<string, string>, key: string) => options[key] === '1';
/** USE_HEADER and USE_FOOTER: on unless `0` (absent included). */
const layoutOn = (options: Record<string, string>, key: 'USE_HEADER' | 'USE_FOOTER') => options[key] !== '0';

/** The header's links, in this order, each shown when its option is on (and USE_HEADER is not `0`). */
const HEADER_LINKS: ReadonlyArray<{ option: string; href: string; label: string }> = [
  { option: 'VIEW_ONLINE', href: '${urls.online_version}', label: 'View this email online' },
  { option: 'SHARE_NETWORK_1', href: '${urls.share_facebook}', label: 'Facebook' },
  { option: 'SHARE_NETWORK_2', href: '${urls.share_twitter}', label: 'Twitter' },
  { option: 'SHARE_NETWORK_3', href: '${urls.share_linkedin}', label: 'LinkedIn' },
  // A forward: the reader's own mail client, with the subject and the online version's link filled in.
  { option: 'SHARE_FORWARD', href: 'mailto:?subject=${campaign.subject?url}&amp;body=${urls.online_version?url}', label: 'Forward' },
];

const BLOCK_STYLE = 'font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:18px;color:#777777;text-align:center;padding:8px 0';
const LINK_STYLE = 'color:#777777;text-decoration:underline';

/** The header block's HTML (a template: its links are the message's own), or '' when it shows nothing. */
export function headerBlock(options: Record<string, string>): string {
  if (!layoutOn(options, 'USE_HEADER')) return '';
  const links = HEADER_LINKS.filter((link) => optionOn(options, link.option))
    .map((link) => `<a href="${link.href}" style="${LINK_STYLE}">${link.label}</a>`);
  // One link a line: SMTP lines stop at 998 octets, and a part with a longer one must go base64 (a third bigger).
  return links.length === 0 ? '' : `\n<div class="herald-header" style="${BLOCK_STYLE}">\n${links.join(' |\n')}\n</div>\n`;
}

/** Whether the header shows the forward link (its subject is then rendered per recipient). */
export function hasForwardLink(options: Record<string, string>): boolean {
  return layoutOn(options, 'USE_HEADER') && optionOn(options, 'SHARE_FORWARD');
}

/** The unsubscribe footer's HTML (USE_FOOTER not `0`), or ''. */
export function footerBlock(options: Record<string, string>): string {
  if (!layoutOn(options, 'USE_FOOTER')) return '';
  return `\n<div class="herald-footer" style="${BLOCK_STYLE}"><a href="\${urls.unsubscribe}" style="${LINK_STYLE}">\${campaign.unsubscribe_text}</a></div>\n`;
}

/** The text part's footer lines. */
const TEXT_FOOTER = '\n\n-- \n${campaign.unsubscribe_text} ${urls.unsubscribe}\n';

/** The header right after `<body…>` and the footer right before the last `</body>`; without them, first and last. */
export function withLayout(html: string, header: string, footer: string): string {
  let out = html;
  if (header) {
    const body = /<body\b[^>]*>/i.exec(out);
    out = body ? out.slice(0, body.index + body[0].length) + header + out.slice(body.index + body[0].length) : header + out;
  }
  if (footer) {
    const close = out.toLowerCase().lastIndexOf('</body');
    out = close >= 0 ? out.slice(0, close) + footer + out.slice(close) : out + footer;
  }
  return out;
}

/** Open tracking always; click tracking with TRACK_LINKS; utm parameters with ANALYTICS (utm_campaign: ANALYTICS_CAMPAIGN_NAME, else the name). */
export function trackingOf(campaign: Pick<CampaignDoc, 'name' | 'options'>): TrackingOptions {
  const { options } = campaign;
  return {
    open: { enable: true },
    click: { enable: optionOn(options, 'TRACK_LINKS') },
    ...(optionOn(options, 'ANALYTICS')
      ? { analytics: { utm_source: 'herald', utm_medium: 'email', utm_campaign: options.ANALYTICS_CAMPAIGN_NAME || campaign.name } }
      : {}),
  };
}

/** CR and LF would end a header: a name or subject is one line. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');

function address(email: string, name: string): Address {
  const shown = oneLine(name ?? '').trim();
  return shown ? { email, name: shown } : { email };
}

/** The campaign's content with an HTML body (the one thing planning needs); throws for one without. */
export function sendableContent(campaign: CampaignDoc): CampaignContentDoc & { html: string } {
  const { content } = campaign;
  if (!content || typeof content.html !== 'string') throw new Error(`campaign ${campaign.id} has no HTML body to send`);
  return content as CampaignContentDoc & { html: string };
}

/** The send body of the campaign's content (no recipients: each is made from its snapshot row). */
export function campaignSendBody(campaign: CampaignDoc): SendRequestBody {
  const content = sendableContent(campaign);
  const { options } = campaign;
  const footer = footerBlock(options);
  return {
    from: address(content.from, content.fromName),
    ...(content.replyTo ? { reply_to: address(content.replyTo, content.replyToName) } : {}),
    subject: oneLine(content.subject),
    content: {
      html: withLayout(content.html, headerBlock(options), footer),
      ...(content.text ? { text: footer ? content.text + TEXT_FOOTER : content.text } : {}),
    },
    recipients: [],
    tags: campaign.tags,
    tracking: trackingOf(campaign),
  };
}

/** The campaign's part of the model; `subject`: the recipient's rendered subject (only the forward link shows it). */
export function campaignModel(content: CampaignContentDoc, subject: string): CampaignModel {
  return { subject, unsubscribe_text: content.unsubscribeText || DEFAULT_UNSUBSCRIBE_TEXT };
}

/** Whether the message will carry an unsubscribe link: the footer (USE_FOOTER not `0`) or `${urls.unsubscribe}` in the body. */
export function hasUnsubscribeLink(content: CampaignContentDoc, options: Record<string, string>): boolean {
  if (layoutOn(options, 'USE_FOOTER')) return true;
  return typeof content.html === 'string' && /\$\{\s*urls\.unsubscribe\b/.test(content.html);
}
