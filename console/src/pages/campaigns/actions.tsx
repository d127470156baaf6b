// What can be done to a campaign in its state, each one API call: launch now or at a date, stop a
// scheduled launch, pause, resume, cancel, duplicate, archive, delete. A control the user lacks
// the permission for is shown disabled with the reason (the API refuses it too).
import { useState } from 'preact/hooks';
import { parseISO } from 'date-fns';
import { accountPath, api, ApiError } from '../../api';
import { ActionButton } from '../../components/buttons';
import { TextField } from '../../components/forms';
import { can } from '../../session';
import { LAUNCHED, type Campaign } from './types';

const lacks = (permission: string) => (can(permission) ? undefined : `You lack the ${permission} permission`);

export function CampaignActions({ campaign, onChanged, onDuplicated, onDeleted }: {
  campaign: Campaign; onChanged: () => void; onDuplicated: (id: number) => void; onDeleted: () => void;
}) {
  const [when, setWhen] = useState('');
  const path = (action: string) => accountPath(`/campaigns/${campaign.id}/${action}`);
  const act = (action: string, body?: unknown) => async () => {
    await api.post(path(action), body);
    onChanged();
  };
  const launchWhy = lacks('campaigns:launch');
  const updateWhy = lacks('campaigns:update');
  const { state } = campaign;

  async function schedule() {
    const date = parseISO(when);
    if (!when || Number.isNaN(date.getTime())) throw new ApiError(400, 'VALIDATION_ERROR', 'Choose the date and time to send at.');
    await act('launch', { launchDate: date.toISOString() })();
  }

  return (
    <div class="campaign-actions">
      {state === 'DRAFT' && (
        <>
          <div class="action-row">
            <ActionButton kind="primary" onAction={act('launch')} disabled={Boolean(launchWhy)} why={launchWhy}
              confirm={`Send "${campaign.name}" to its audience now?`}>Launch now</ActionButton>
          </div>
          <div class="action-row schedule">
            <TextField label="Send at (your time)" type="datetime-local" value={when} onInput={setWhen} disabled={Boolean(launchWhy)} />
            <ActionButton onAction={schedule} disabled={Boolean(launchWhy)} why={launchWhy}>Schedule</ActionButton>
          </div>
        </>
      )}
      <div class="action-row">
        {(state === 'SCHEDULED' || state === 'PENDING_APPROVAL') && (
          <ActionButton onAction={act('stop')} disabled={Boolean(launchWhy)} why={launchWhy}>Unschedule (back to draft)</ActionButton>
        )}
        {LAUNCHED.includes(state) && !campaign.paused && (
          <ActionButton onAction={act('pause')} disabled={Boolean(launchWhy)} why={launchWhy}>Pause</ActionButton>
        )}
        {LAUNCHED.includes(state) && campaign.paused && (
          <ActionButton onAction={act('resume')} disabled={Boolean(launchWhy)} why={launchWhy}>Resume</ActionButton>
        )}
        {LAUNCHED.includes(state) && (
          <ActionButton kind="danger" onAction={act('cancel')} disabled={Boolean(launchWhy)} why={launchWhy}
            confirm={`Cancel "${campaign.name}"? Nothing more will be sent, and it cannot be launched again.`}>Cancel the campaign</ActionButton>
        )}
        {(state === 'SENT' || state === 'CANCELLED') && !campaign.archived && (
          <ActionButton onAction={act('archive')} disabled={Boolean(updateWhy)} why={updateWhy}>Archive</ActionButton>
        )}
        {campaign.archived && (
          <ActionButton onAction={act('unarchive')} disabled={Boolean(updateWhy)} why={updateWhy}>Unarchive</ActionButton>
        )}
        <ActionButton onAction={async () => onDuplicated((await api.post<{ id: number }>(path('duplicate'), { name: `${campaign.name} (copy)` })).data.id)}
          disabled={Boolean(lacks('campaigns:create'))} why={lacks('campaigns:create')}>Duplicate</ActionButton>
        {state === 'DRAFT' && (
          <ActionButton kind="danger" onAction={async () => { await api.delete(accountPath(`/campaigns/${campaign.id}`)); onDeleted(); }}
            disabled={Boolean(lacks('campaigns:delete'))} why={lacks('campaigns:delete')}
            confirm={`Delete the draft "${campaign.name}"? This cannot be undone.`}>Delete</ActionButton>
        )}
      </div>
    </div>
  );
}
