import type { Role } from '../../../api/gen/types.gen';
import { asApiError } from '../../../api/errors';
import { ROLES } from './parts';

interface Props {
  roles: Role[];
  onChange: (roles: Role[]) => void;
  error?: unknown;
  disabled?: boolean;
  /** Under a heading that already says "Roles": the legend is for screen readers only. */
  legendHidden?: boolean;
}

/** The roles as checkboxes in a fieldset; a 422 on `roles` shows under them. */
export function RoleChoices({ roles, onChange, error, disabled, legendHidden }: Props) {
  const message = error ? asApiError(error).fieldMessage('roles') : undefined;
  function toggle(role: Role, on: boolean) {
    const next = on ? [...roles, role] : roles.filter((each) => each !== role);
    onChange(ROLES.map((each) => each.role).filter((each) => next.includes(each)));
  }
  return (
    <fieldset className="admin-roles" aria-describedby={message ? 'roles-error' : undefined}>
      <legend className={legendHidden ? 'visually-hidden' : undefined}>Roles</legend>
      {ROLES.map(({ role, label, hint }) => (
        <label key={role}>
          <input
            type="checkbox"
            checked={roles.includes(role)}
            disabled={disabled}
            onChange={(event) => toggle(role, event.target.checked)}
          />
          <span>
            {label} <span className="muted">— {hint}</span>
          </span>
        </label>
      ))}
      {message && (
        <p id="roles-error" className="field__error">
          {message}
        </p>
      )}
    </fieldset>
  );
}
