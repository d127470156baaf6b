// The open pixel in a message's HTML (core/content/tracking/rewrite.ts): an <img> when the content
// has images of its own, else the background image of a 1×1 <div>.
const PIXEL = /<img src="([^"]+\/t\/o\/[^"]+)"[^>]*>|<div style="[^"]*background-image:url\('([^']+\/t\/o\/[^']+)'\)">&nbsp;<\/div>/;

/** The pixel's URL (its /t/o/ link); throws when the HTML has none. */
export function openPixelUrl(html: unknown): string {
  const match = PIXEL.exec(String(html));
  if (!match) throw new Error('no open pixel in the HTML');
  return match[1] ?? match[2];
}

/** The HTML without its pixel. */
export function withoutPixel(html: unknown): string {
  return String(html).replace(PIXEL, '');
}
