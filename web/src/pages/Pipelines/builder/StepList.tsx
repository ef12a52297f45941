/** The steps, in order: each its own form; add, remove, move up and down by keyboard. */
import { useEffect, useId, useRef, useState } from 'react';
import type { ReactNode } from 'react';

import { emptyStep, opLabel, STEP_OPS } from './draft';
import type { StepDraft, StepOp } from './draft';
import { StepFields } from './StepForms';

interface Props {
  steps: StepDraft[];
  error: unknown;
  onChange: (steps: StepDraft[]) => void;
  /** Below each step (the preview up to it). */
  after?: (index: number) => ReactNode;
}

export function StepList({ steps, error, onChange, after }: Props) {
  const addId = useId();
  const [adding, setAdding] = useState<StepOp>('filter');
  const focusRef = useRef<string | null>(null);
  const [, setTick] = useState(0);
  // The element to focus once the list has re-rendered (a moved or new step).
  const focus = (id: string) => {
    focusRef.current = id;
    setTick((tick) => tick + 1);
  };
  useEffect(() => {
    if (focusRef.current) {
      document.getElementById(focusRef.current)?.focus();
      focusRef.current = null;
    }
  });

  const change = (index: number, changes: Partial<StepDraft>) =>
    onChange(steps.map((step, i) => (i === index ? { ...step, ...changes } : step)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...steps];
    const [step] = next.splice(index, 1);
    next.splice(index + by, 0, step);
    onChange(next);
    const edge = (by === -1 && index + by === 0) || (by === 1 && index + by === steps.length - 1);
    focus(`${step.key}-${edge ? (by === -1 ? 'down' : 'up') : by === -1 ? 'up' : 'down'}`);
  };
  const remove = (index: number) => {
    onChange(steps.filter((_, i) => i !== index));
    const neighbour = steps[index + 1] ?? steps[index - 1];
    focus(neighbour ? `${neighbour.key}-title` : addId);
  };
  const add = () => {
    const step = emptyStep(adding);
    onChange([...steps, step]);
    focus(`${step.key}-title`);
  };

  return (
    <section className="pipelines-steps" aria-labelledby={`${addId}-steps`}>
      <h2 id={`${addId}-steps`}>Steps</h2>
      {steps.length === 0 && (
        <p className="muted">No steps: a run copies the source as it is. Add a step below.</p>
      )}
      <ol className="pipelines-step-list">
        {steps.map((step, index) => (
          <li key={step.key} className="card pipelines-step">
            <fieldset className="pipelines-step__fields">
              <legend id={`${step.key}-title`} tabIndex={-1}>
                Step {index + 1}: {opLabel(step.op)}
              </legend>
              <StepFields draft={step} index={index} error={error} onChange={(changes) => change(index, changes)} />
            </fieldset>
            <div className="actions pipelines-step__actions">
                <button id={`${step.key}-up`} type="button" className="button" disabled={index === 0} onClick={() => move(index, -1)}>
                  Move step {index + 1} up
                </button>
                <button id={`${step.key}-down`} type="button" className="button" disabled={index === steps.length - 1} onClick={() => move(index, 1)}>
                  Move step {index + 1} down
                </button>
                <button type="button" className="button button--danger" onClick={() => remove(index)}>
                  Remove step {index + 1}
                </button>
            </div>
            {after?.(index)}
          </li>
        ))}
      </ol>
      <div className="pipelines-add">
          <div className="field">
            <label htmlFor={addId}>Step to add</label>
            <select id={addId} value={adding} onChange={(event) => setAdding(event.target.value as StepOp)}>
              {STEP_OPS.map(({ op, label }) => (
                <option key={op} value={op}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <button type="button" className="button" onClick={add}>
            Add step
          </button>
      </div>
    </section>
  );
}
