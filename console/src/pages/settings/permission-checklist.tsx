// The permissions a user can hold, as checkboxes grouped by namespace (contacts, lists, …), in
// the order core/accounts/permissions.ts gives them.
import { ALL_PERMISSIONS } from '../../../../core/accounts/permissions';
import { Checkbox } from '../../components/forms';

const GROUPS: Array<[string, string[]]> = [];
for (const permission of ALL_PERMISSIONS) {
  const namespace = permission.split(':')[0];
  const group = GROUPS.find(([name]) => name === namespace);
  if (group) group[1].push(permission);
  else GROUPS.push([namespace, [permission]]);
}

export { ALL_PERMISSIONS };

export function PermissionChecklist({ value, onChange, disabled, error }: {
  value: string[]; onChange: (value: string[]) => void; disabled?: boolean; error?: string;
}) {
  const set = (changed: string[], on: boolean) =>
    onChange(ALL_PERMISSIONS.filter((p) => (changed.includes(p) ? on : value.includes(p))));
  return (
    <fieldset class="permissions" disabled={disabled}>
      <legend>Permissions</legend>
      <p class="choose-all">
        <button type="button" onClick={() => onChange([...ALL_PERMISSIONS])}>Choose all</button>{' '}
        <button type="button" onClick={() => onChange([])}>Choose none</button>
      </p>
      <div class="permission-groups">
        {GROUPS.map(([namespace, permissions]) => (
          <fieldset key={namespace}>
            <legend>{namespace}</legend>
            {permissions.map((p) => <Checkbox key={p} label={p} checked={value.includes(p)} onChange={(on) => set([p], on)} />)}
          </fieldset>
        ))}
      </div>
      {error && <p class="field-error" role="alert">{error}</p>}
    </fieldset>
  );
}
