import { useState } from 'preact/hooks';

/**
 * Copies `text` to the clipboard, and says so in a status line (read out by screen readers). A
 * browser that refuses (no clipboard permission, a page not served over HTTPS) gets the advice to
 * copy by hand: the text is always shown beside the button.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      setSaid('The browser refused: select the text and copy it.');
    }
  }
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy}>Copy<span class="visually-hidden"> {label}</span></button>
      <span role="status" class="hint">{said}</span>
    </span>
  );
}
