import path from 'node:path';
import { projectRoot } from '../adapters/project-root';

/** Where the project's own installers put Temporal, the store's jars and the Python venv. */
export const toolsDir = process.env.HERALD_TOOLS_DIR
  ? path.resolve(process.env.HERALD_TOOLS_DIR)
  : path.join(projectRoot, '.tools');
