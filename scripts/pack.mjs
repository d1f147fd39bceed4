// Packs every published package of the workspace into one folder, so that a project of your own
// can install Celeriac before it is on a registry: `npm install /path/to/.packs/*.tgz reflect-metadata`.
// The packages depend on each other by exact version, so they are installed together.
//
// Usage: node scripts/pack.mjs [folder]   (default: .packs/ in the repository root; build first, as
// `npm run pack` does). Replaces the tarballs already in the folder; prints the paths it wrote.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const folder = resolve(process.argv[2] ?? join(root, '.packs'));

/** The workspaces that are published: those whose package.json is not `private`. */
function publishedWorkspaces() {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return workspaces
    .filter((path) => !path.includes('*'))
    .map((path) => JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')))
    .filter((pkg) => !pkg.private)
    .map((pkg) => pkg.name);
}

mkdirSync(folder, { recursive: true });
for (const file of readdirSync(folder)) if (file.endsWith('.tgz')) rmSync(join(folder, file));

const names = publishedWorkspaces();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const packed = JSON.parse(
  execFileSync(npm, ['pack', '--json', '--pack-destination', folder, ...names.flatMap((name) => ['-w', name])], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);
for (const { filename } of packed) console.log(join(folder, filename));
