// '/migrations/:id': one migration followed to its end (its task's progress: the step under way
// and that step's ETA), then its report, or the reason it stopped.
import { useRoute } from 'preact-iso';
import { accountPath, api } from '../../api';
import { ActionButton } from '../../components/buttons';
import { Details, Loading, Page, Section } from '../../components/page';
import { TaskProgress, useTask, type Task } from '../../components/task';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { MigrationReportView } from './migration-report';
import type { MigrationParameters, MigrationReport } from './migration-types';
import './settings.css';

function Followed({ first }: { first: Task }) {
  const { task, error, ended } = useTask(first);
  if (!task) return null;
  const parameters = task.parameters as unknown as MigrationParameters;
  const report = task.state === 'FINISHED' ? (task.result as unknown as MigrationReport) : null;
  return (
    <>
      <Section title="Source">
        <Details items={[
          ['Server', parameters.from],
          ['Account there', parameters.sourceAccount],
          ['Requests per second', String(parameters.rate)],
          ['Into an account holding other data', parameters.merge ? 'Yes' : 'No'],
          ['Started', dateTime(task.created)],
          ['Ended', dateTime(task.end)],
        ]} />
      </Section>
      <Section title="Progress">
        <TaskProgress task={task} error={error} label={task.name} />
        {!ended && (
          <ActionButton kind="danger" confirm="Stop this migration? What it wrote stays; started again, it goes on from there."
            onAction={() => api.post(accountPath(`/tasks/${task.id}/cancel`))}>Stop migration</ActionButton>
        )}
        {task.state === 'FAILED' && <p>Nothing more was written. Correct what the message says and start it again: it goes on where it stopped.</p>}
      </Section>
      {report && (
        <Section title="Report">
          <MigrationReportView report={report} />
        </Section>
      )}
    </>
  );
}

export function MigrationPage() {
  const { params } = useRoute();
  const loaded = useApi<Task>(accountPath(`/tasks/${encodeURIComponent(params.id)}`));
  const isMigration = loaded.data?.type === 'ACCOUNT_MIGRATION';
  return (
    <Page title={loaded.data && isMigration ? loaded.data.name : 'Migration'}>
      <p><a href={to('/migrations')}>← All migrations</a></p>
      <Loading loading={loaded.loading} error={loaded.error}>
        {loaded.data && (isMigration ? <Followed first={loaded.data} /> : <p class="error" role="alert">Task {params.id} is not a migration.</p>)}
      </Loading>
    </Page>
  );
}
