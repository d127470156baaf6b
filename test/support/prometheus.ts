// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: it throws
// on any line the format does not allow, on a sample whose family has no TYPE before it, on a
// series given twice, and on histogram buckets that are not cumulative or disagree with _count.

export interface Family { name: string; type: string; help?: string }
export interface Scrape { families: Map<string, Family>; samples: Map<string, number> }

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`;
/** A float as Prometheus reads it (Go's ParseFloat): NaN and Inf in any letter case (prom-client writes `Nan`). */
const VALUE = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[nN][aA][nN]|[-+]?[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL}(?:,${LABEL})*)?,?)\\})? (${VALUE})(?: -?\\d+)?$`);
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

/** The key of one series: `name{a="x",b="y"}` with labels sorted (no braces without labels). */
export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}="${v}"`);
  return pairs.length > 0 ? `${name}{${pairs.join(',')}}` : name;
}

export function parsePrometheus(text: string): Scrape {
  const families = new Map<string, Family>();
  const samples = new Map<string, number>();
  const familyOf = (sample: string) => {
    for (const suffix of ['_bucket', '_sum', '_count', '']) {
      if (!sample.endsWith(suffix)) continue;
      const family = families.get(sample.slice(0, sample.length - suffix.length));
      if (family && (suffix === '' || family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket'))) return family;
    }
    return undefined;
  };
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  text.slice(0, -1).split('\n').forEach((line, index) => {
    const where = `line ${index + 1}: ${line.slice(0, 120)}`;
    if (line === '') return;
    const meta = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      const family = families.get(name) ?? { name, type: '' };
      if (kind === 'TYPE') {
        if (family.type || !TYPES.includes(rest)) throw new Error(`${where}: a second or unknown TYPE`);
        family.type = rest;
      } else {
        if (family.help !== undefined) throw new Error(`${where}: a second HELP`);
        family.help = rest;
      }
      families.set(name, family);
      return;
    }
    if (line.startsWith('#')) return; // a comment
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`${where}: not a sample`);
    const name = match[1];
    if (!familyOf(name)?.type) throw new Error(`${where}: no TYPE declared before the sample`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(new RegExp(LABEL, 'g'))) {
      if (key in labels) throw new Error(`${where}: label ${key} twice`);
      labels[key] = value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const key = seriesKey(name, labels);
    if (samples.has(key)) throw new Error(`${where}: series given twice`);
    const raw = match[match.length - 1];
    const word = raw.toLowerCase().replace(/^\+/, '');
    samples.set(key, word === 'nan' ? NaN : /^-?inf/.test(word) ? (word.startsWith('-') ? -Infinity : Infinity) : Number(raw));
  });
  checkHistograms(families, samples);
  return { families, samples };
}

/** Buckets rise with `le`, never fall, and the +Inf bucket equals _count, per series. */
function checkHistograms(families: Map<string, Family>, samples: Map<string, number>) {
  for (const family of [...families.values()].filter((f) => f.type === 'histogram')) {
    const series = new Map<string, Array<[number, number]>>();
    for (const [key, value] of samples) {
      const match = new RegExp(`^${family.name}_bucket\\{(.*)\\}$`).exec(key);
      if (!match) continue;
      const le = /(?:^|,)le="([^"]*)"/.exec(match[1])![1];
      const others = match[1].replace(/(?:^|,)le="[^"]*"/, '').replace(/^,/, '');
      series.set(others, [...(series.get(others) ?? []), [le === '+Inf' ? Infinity : Number(le), value]]);
    }
    for (const [others, buckets] of series) {
      buckets.sort(([a], [b]) => a - b);
      buckets.forEach(([, count], i) => {
        if (i > 0 && count < buckets[i - 1][1]) throw new Error(`${family.name}{${others}}: buckets fall`);
      });
      const count = samples.get(others ? `${family.name}_count{${others}}` : `${family.name}_count`);
      if (buckets.at(-1)![0] !== Infinity || buckets.at(-1)![1] !== count) throw new Error(`${family.name}{${others}}: the +Inf bucket is not _count`);
    }
  }
}

/** The value of one series, 0 when absent (a counter not yet incremented). */
export function valueOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return scrape.samples.get(seriesKey(name, labels)) ?? 0;
}
