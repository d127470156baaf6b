// A task (an import, an export, a migration) followed to its end: GET /tasks/{id} every half second while it
// runs, shown as a <progress> bar fed by the task's own `completed` (0..1) and message.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { accountPath, api, messageOf } from '../api';
import { usePolling } from '../hooks';
import { ErrorText } from './forms';

const POLL_MS = 500;

/** GET /tasks/{id}. */
export interface Task {
  id: number;
  type: string;
  name: string;
  state: 'QUEUED' | 'INITIALIZING' | 'PROCESSING' | 'FINISHED' | 'FAILED' | 'CANCELLED';
  message: string;
  completed: number;
  /** Seconds left, -1 when unknown. */
  eta: number;
  created: string | null;
  end: string | null;
  parameters: Record<string, unknown>;
  result: Record<string, unknown> | null;
}

export const TASK_ENDED = ['FINISHED', 'FAILED', 'CANCELLED'];

/** The task as last read, and the error of the last read (a failed poll is retried). */
export function useTask(initial: Task | null): { task: Task | null; error: string | null; ended: boolean } {
  const [task, setTask] = useState<Task | null>(initial);
  const [error, setError] = useState<string | null>(null);
  const id = initial?.id;
  const current = useRef(id);
  useEffect(() => {
    current.current = id;
    setTask(initial);
    setError(null);
  }, [id]);
  const ended = task ? TASK_ENDED.includes(task.state) : false;
  const load = useCallback(() => {
    if (id === undefined) return;
    api.get<Task>(accountPath(`/tasks/${id}`)).then(
      ({ data }) => { if (current.current === id) { setTask(data); setError(null); } },
      (caught) => { if (current.current === id) setError(messageOf(caught)); },
    );
  }, [id]);
  usePolling(id !== undefined && !ended, POLL_MS, load);
  return { task, error, ended };
}

/** The bar, its label and percentage, and the task's message (read out politely as it changes). */
export function TaskProgress({ task, error, label }: { task: Task; error: string | null; label: string }) {
  const percent = Math.round((task.completed ?? 0) * 100);
  return (
    <div class="task-progress">
      <label for={`task-${task.id}`}>{label}</label>
      <progress id={`task-${task.id}`} max={1} value={task.completed ?? 0} aria-valuetext={`${percent}%`}>{percent}%</progress>
      <p role="status" aria-live="polite" class={task.state === 'FAILED' ? 'error' : undefined}>
        <span class="badge">{task.state}</span> {percent}% · {task.message}
      </p>
      <ErrorText error={error} />
    </div>
  );
}
