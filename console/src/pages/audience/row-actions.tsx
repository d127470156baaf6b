// The actions of a list's, an interest's or a custom field's row: rename, export (lists and
// interests), delete; each needs its resource's permission, and is disabled with why without it.
import { accountPath, api } from '../../api';
import { can } from '../../session';
import { ActionButton } from '../../components/buttons';
import { ExportButton } from './export';
import { Rename } from './rename';

export function RowActions({ resource, id, name, confirm, exportable = false, onChanged }: {
  resource: 'lists' | 'interests' | 'fields';
  id: number;
  name: string;
  /** The question asked before deleting: what deleting it does to the contacts. */
  confirm: string;
  exportable?: boolean;
  onChanged: () => void;
}) {
  const path = accountPath(`/${resource}/${id}`);
  return (
    <div class="row-actions">
      <Rename name={name} disabled={!can(`${resource}:update`)} why={`Renaming needs the permission ${resource}:update`}
        onRename={async (renamed) => { await api.put(path, { name: renamed }); onChanged(); }} />
      {exportable && <ExportButton path={`/${resource}/${id}/export`} label="Export" />}
      <ActionButton kind="danger" disabled={!can(`${resource}:delete`)} why={`Deleting needs the permission ${resource}:delete`}
        confirm={confirm} onAction={async () => { await api.delete(path); onChanged(); }}>
        Delete
      </ActionButton>
    </div>
  );
}
