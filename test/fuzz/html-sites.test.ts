// Differential fuzz of the tracking rewrite's HTML reading: on generated documents where a
// browser's tree and Herald's tag scan must agree, htmlSites gives what parse5's tree gives
// (./html-sites-oracle.ts). A pure function, no stack: in `npm test` SMOKE_RUNS documents from a
// fixed seed; `npm run fuzz` (HERALD_FUZZ_RUNS, HERALD_FUZZ_SECONDS, HERALD_FUZZ_SEED) the long run.
import fc from 'fast-check';
import { htmlSites, type HtmlSites } from '../../core/content/tracking/html';
import { htmlDocument } from './html-arbitraries';
import { parse5Sites } from './html-sites-oracle';

const SMOKE_RUNS = 1000;
const LONG = process.env.HERALD_FUZZ_SECONDS !== undefined;
const RUNS = Number(process.env.HERALD_FUZZ_RUNS ?? SMOKE_RUNS);
const SEED = process.env.HERALD_FUZZ_SEED ? Number(process.env.HERALD_FUZZ_SEED) : LONG ? undefined : 1;
if (LONG) jest.setTimeout((Number(process.env.HERALD_FUZZ_SECONDS) + 60) * 1000);

/** Drops in source order: the tree's order moves a table's misplaced content before it, and the template compiler sorts them anyway. */
const inSourceOrder = (sites: HtmlSites) => ({ ...sites, drops: [...sites.drops].sort((a, b) => a.start - b.start) });

it('finds the links, Herald\'s attributes and the closing </body> that parse5\'s tree has', () => {
  fc.assert(fc.property(htmlDocument, (source) => {
    expect(inSourceOrder(htmlSites(source))).toEqual(inSourceOrder(parse5Sites(source)));
  }), {
    numRuns: RUNS,
    seed: SEED,
    ...(LONG ? { interruptAfterTimeLimit: Number(process.env.HERALD_FUZZ_SECONDS) * 1000, markInterruptAsFailure: false } : {}),
  });
});

it('generates documents with what the comparison is about', () => {
  // Links, Herald's attributes taken out, unquoted hrefs, a </body> that closes the body and one that does not.
  const samples = fc.sample(htmlDocument, { numRuns: 300, seed: 2 }).map((source) => ({ source, sites: parse5Sites(source) }));
  const count = (test: (sample: (typeof samples)[number]) => boolean) => samples.filter(test).length;
  expect(count(({ sites }) => sites.links.length > 0)).toBeGreaterThan(100);
  expect(count(({ sites }) => sites.drops.length > 0)).toBeGreaterThan(20);
  expect(count(({ sites }) => sites.links.some((link) => link.unquoted))).toBeGreaterThan(20);
  expect(count(({ source, sites }) => sites.pixelAt < source.length)).toBeGreaterThan(50);
  expect(count(({ source, sites }) => sites.pixelAt === source.length && /<\/body>/i.test(source))).toBeGreaterThan(10);
});
