// Export: starts a CONTACT_EXPORT_TASK (POST /contacts/export, /lists/{id}/export…), follows its
// progress, then offers the file, downloaded with the session header (download.ts).
import { useState } from 'preact/hooks';
import { accountPath, request } from '../../api';
import { ActionButton } from '../../components/buttons';
import { can } from '../../session';
import { downloadFile } from '../../download';
import { TaskProgress, useTask, type Task } from '../../components/task';

export function ExportButton({ path = '/contacts/export', body = {}, label = 'Export CSV' }: { path?: string; body?: object; label?: string }) {
  const [started, setStarted] = useState<Task | null>(null);
  const { task, error } = useTask(started);
  const fileName = task?.state === 'FINISHED' ? String((task.result?.fileName ?? task.parameters.fileName) as string) : null;
  const allowed = can('contacts:list') && can('tasks:list');
  return (
    <div class="export">
      <ActionButton disabled={!allowed} why="Exporting needs the permissions contacts:list and tasks:list"
        onAction={async () => setStarted((await request<never>(accountPath(path), { method: 'POST', body })).task as unknown as Task)}>
        {label}
      </ActionButton>
      {task && <TaskProgress task={task} error={error} label="Export progress" />}
      {fileName && (
        <ActionButton kind="primary" onAction={() => downloadFile(accountPath(`/exports/${encodeURIComponent(fileName)}`), fileName)}>
          Download {fileName}
        </ActionButton>
      )}
    </div>
  );
}
