// An automation's steps in order: emails (sender, subject, their content) and waits.
import { formatDuration, intervalToDuration } from 'date-fns';
import { CodeBlock } from '../../components/page';
import type { Step } from './types';

function waitFor(seconds: number): string {
  return formatDuration(intervalToDuration({ start: 0, end: seconds * 1000 }), { format: ['days', 'hours', 'minutes', 'seconds'] }) || `${seconds} seconds`;
}

function EmailStep({ step, index }: { step: Extract<Step, { type: 'email' }>; index: number }) {
  return (
    <>
      <h3>Step {index + 1}: email “{step.subject}”</h3>
      <p>From {step.fromName ? `${step.fromName} <${step.from}>` : step.from}{step.replyTo && `, replies to ${step.replyTo}`}</p>
      {step.html !== undefined && (
        <details>
          <summary>Show the HTML (a template: placeholders are filled when sent)</summary>
          <iframe class="step-preview" sandbox="" srcdoc={step.html} title={`Content of step ${index + 1}`} />
        </details>
      )}
      {step.mjml !== undefined && <details><summary>Show the MJML</summary><CodeBlock label="The MJML" text={step.mjml} /></details>}
      {step.text && <details><summary>Show the text part</summary><CodeBlock label="The text part" text={step.text} /></details>}
    </>
  );
}

export function Steps({ steps }: { steps: Step[] }) {
  if (steps.length === 0) return <p class="muted">No steps yet: an automation needs an email step to be activated.</p>;
  return (
    <ol class="steps">
      {steps.map((step, index) => (
        <li key={index}>
          {step.type === 'email' ? <EmailStep step={step} index={index} /> : <h3>Step {index + 1}: wait {waitFor(step.seconds)} <span class="muted">({step.duration})</span></h3>}
        </li>
      ))}
    </ol>
  );
}
