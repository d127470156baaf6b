// Permissions are the original service's ACL strings, `<namespace>:<action>`. The ten the
// original documents (contacts:list, lists:list, tasks:cancel, fields:list, optins:*, …) are
// among them; the rest follow the same pattern for every namespace Herald serves.

const CRUD = ['list', 'create', 'update', 'delete'];

const NAMESPACES: Record<string, string[]> = {
  contacts: CRUD,
  lists: CRUD,
  interests: CRUD,
  fields: CRUD,
  tasks: ['list', 'cancel'],
  users: CRUD,
  campaigns: [...CRUD, 'launch'],
  templates: CRUD,
  optins: CRUD,
  automations: CRUD,
  webhooks: CRUD,
  activity: ['list'],
  bounces: ['create'],
  account: ['list', 'update'],
};

/** Every permission, in a stable order: what a user gets when none are named. */
export const ALL_PERMISSIONS: readonly string[] = Object.entries(NAMESPACES)
  .flatMap(([namespace, actions]) => actions.map((action) => `${namespace}:${action}`));

const known = new Set(ALL_PERMISSIONS);

export function isPermission(value: string): boolean {
  return known.has(value);
}
