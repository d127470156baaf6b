// Builds the console (console/src, Preact) into dist/console: one hashed script and stylesheet
// under assets/ (served with a year's cache: a new build has new names) and index.html naming
// them. Run by `npm run build` and so by postinstall, `npm start` and `npm test`.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const outDir = path.join(root, 'dist', 'console');

async function main() {
  let esbuild;
  try {
    esbuild = require('esbuild');
  } catch {
    return; // a production install without dev packages: it copies a prebuilt dist/ (docker/Dockerfile)
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { console: 'console/src/main.tsx' },
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: path.join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.woff2': 'file', '.svg': 'file' },
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(outDir, path.join(root, file)));
  const script = outputs.find((f) => f.endsWith('.js'));
  const styles = outputs.find((f) => f.endsWith('.css'));
  if (!script || !styles) throw new Error(`console build: expected a .js and a .css output, got ${outputs.join(', ')}`);
  const html = fs.readFileSync(path.join(root, 'console', 'index.html'), 'utf8')
    .replace('%SCRIPT%', `/console/${script}`)
    .replace('%STYLES%', `/console/${styles}`);
  fs.writeFileSync(path.join(outDir, 'index.html'), html);
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
