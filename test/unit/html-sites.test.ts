import { htmlSites } from '../../core/content/tracking/html';

/** The href values htmlSites finds, and the text before the pixel's place. */
function read(html: string): { hrefs: string[]; beforePixel: string } {
  const sites = htmlSites(html);
  return { hrefs: sites.links.map((link) => html.slice(link.start, link.end)), beforePixel: html.slice(0, sites.pixelAt) };
}

describe('htmlSites reads HTML as a browser does', () => {
  it.each([
    ['<iframe><a href="x"></iframe>'], ['<noembed><a href="x"></noembed>'], ['<noframes><a href="x"></noframes>'], ['<textarea><a href="x"></textarea>'],
    ['<title><a href="x"></title>'], ['<style/><a href="x"></style>'], ['<plaintext><a href="x"></plaintext><a href="y">'],
  ])('finds no link in raw text: %s', (html) => {
    expect(read(html).hrefs).toEqual([]);
  });

  it('ends raw text at its end tag followed by a space, / or >, and reads on', () => {
    expect(read('<xmp></xmpx><a href="x"></xmp/><a href="y">').hrefs).toEqual(['y']);
  });

  it('reads bogus comments to their first >, and ends a comment at --!>', () => {
    expect(read('<!><a href="a"><!-><a href="b"><![CDATA[ > <a href="c"> ]]><!-- --!><a href="d">').hrefs).toEqual(['a', 'b', 'c', 'd']);
    expect(read('<!--!><a href="x">').hrefs).toEqual([]);
  });

  it('puts the pixel before the </body> that closes the body', () => {
    expect(read('<body><table><tr><td>x</td></tr></table></body></html>').beforePixel).toBe('<body><table><tr><td>x</td></tr></table>');
    expect(read('<body><table><tr><td>x</body></html>').beforePixel).toBe('<body><table><tr><td>x</body></html>'); // the table is open: ignored
    expect(read('<body><table><tr><td>x</table></body>').beforePixel).toBe('<body><table><tr><td>x</table>'); // </table> closes its cell
    expect(read('<body>a</ body></body>').beforePixel).toBe('<body>a</ body>'); // `</ body>` is a comment
  });

  it('puts the pixel at the end when the body starts before its <body> tag (a browser records no end of it)', () => {
    const html = '<html><p>preheader</p><body>x</body></html>';
    expect(read(html).beforePixel).toBe(html);
  });
});
