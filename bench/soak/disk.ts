// The data folder on a disk of its own (a tmpfs, as root), so that the soak can fill it for a
// minute and free it again without touching the machine's disk. Without root (or where mounting
// is refused) the folder is an ordinary one and the disk episode is skipped, said in the report.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface SoakDisk {
  dir: string;
  /** Why there is no disk episode, when there is none. */
  unavailable?: string;
  /** Takes every free byte of the disk; returns the bytes taken. */
  fill(): number;
  free(): void;
  usedBytes(): number;
  /** Unmounts (and removes) the folder. */
  remove(): void;
}

const FILLER = '.soak-disk-filler';

export function soakDisk(dir: string, sizeMb: number): SoakDisk {
  fs.mkdirSync(dir, { recursive: true });
  let unavailable: string | undefined;
  try {
    if (process.getuid?.() !== 0) throw new Error('not root');
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    unavailable = `no disk episode: mounting a tmpfs failed (${(error as Error).message.split('\n')[0]}); run as root`;
  }
  const mounted = unavailable === undefined;
  const filler = path.join(dir, FILLER);
  return {
    dir,
    unavailable,
    fill() {
      if (!mounted) return 0;
      const { bavail, bsize } = fs.statfsSync(dir);
      // fallocate reserves the blocks at once (tmpfs supports it), short of what Herald may write
      // meanwhile; the rest is written over until the disk says it is full.
      execFileSync('fallocate', ['-l', String(Math.max(0, bavail * bsize - 64 * 2 ** 20)), filler], { stdio: 'pipe' });
      try {
        const fd = fs.openSync(`${filler}-rest`, 'w');
        try { for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024)); } finally { fs.closeSync(fd); }
      } catch { /* ENOSPC: full */ }
      return directoryBytes(dir, true) - directoryBytes(dir);
    },
    free() {
      fs.rmSync(filler, { force: true });
      fs.rmSync(`${filler}-rest`, { force: true });
    },
    usedBytes() {
      return directoryBytes(dir);
    },
    remove() {
      if (mounted) {
        try { execFileSync('umount', ['-l', dir], { stdio: 'pipe' }); } catch { /* already gone */ }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Bytes of the files under `dir` (the filler excluded), as `du` would sum them. */
export function directoryBytes(dir: string, withFiller = false): number {
  let total = 0;
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith(FILLER) && !withFiller) continue;
      const full = path.join(at, entry.name);
      try {
        if (entry.isDirectory()) walk(full);
        else total += fs.statSync(full).blocks * 512;
      } catch { /* removed meanwhile */ }
    }
  };
  walk(dir);
  return total;
}
