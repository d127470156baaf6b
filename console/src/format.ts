// Dates and numbers as people read them; date-fns does the calendar work.
import { format, formatDistanceToNowStrict, parseISO } from 'date-fns';

export function dateTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseISO(value);
  return Number.isNaN(date.getTime()) ? value : format(date, 'yyyy-MM-dd HH:mm:ss');
}

export function day(value: string): string {
  const date = parseISO(value);
  return Number.isNaN(date.getTime()) ? value : format(date, 'd MMM');
}

export function ago(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseISO(value);
  return Number.isNaN(date.getTime()) ? value : `${formatDistanceToNowStrict(date)} ago`;
}

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString('en-US');
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? '—' : `${(value * 100).toFixed(1)}%`;
}
