// Activate or deactivate an automation (POST …/activate, …/deactivate), for users with automations:update.
import { accountPath, api } from '../../api';
import { ActionButton } from '../../components/buttons';
import { can } from '../../session';

export function ToggleAutomation({ id, name, enabled, onDone }: { id: string; name: string; enabled: boolean; onDone: () => void }) {
  const path = accountPath(`/automations/${encodeURIComponent(id)}/${enabled ? 'deactivate' : 'activate'}`);
  return (
    <ActionButton kind={enabled ? 'secondary' : 'primary'} disabled={!can('automations:update')} why="Your user lacks the permission automations:update"
      confirm={enabled ? `Deactivate ${name}? Its runs under way stop at once.` : undefined}
      onAction={async () => { await api.post(path); onDone(); }}>
      {enabled ? `Deactivate ${name}` : `Activate ${name}`}
    </ActionButton>
  );
}
