import type { AnyComponent } from 'preact';

/** One page of the console: its path under /console and its component (params arrive as props and through useRoute). */
export interface ConsoleRoute {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  component: AnyComponent<any>;
}

/** A link's target inside the console. */
export function to(path: string): string {
  return `/console${path === '/' ? '' : path}`;
}
