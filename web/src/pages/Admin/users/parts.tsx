import type { Role } from '../../../api/gen/types.gen';

export const ROLES: { role: Role; label: string; hint: string }[] = [
  { role: 'viewer', label: 'Viewer', hint: 'reads what they may see and downloads files' },
  { role: 'editor', label: 'Editor', hint: 'also creates datasets, collections and pipelines' },
  { role: 'admin', label: 'Admin', hint: 'everything, and manages users and groups' },
];

export function RoleTags({ roles }: { roles: Role[] }) {
  if (roles.length === 0) return <span className="muted">No role</span>;
  return (
    <>
      {roles.map((role) => (
        <span key={role} className="tag">
          {role}
        </span>
      ))}
    </>
  );
}

export function UserStatus({ active }: { active: boolean }) {
  return active ? <span>Active</span> : <span className="admin-status--inactive">Deactivated</span>;
}

export function providerName(provider: string): string {
  return ({ local: 'Password', ldap: 'LDAP', oidc: 'SSO (OIDC)' } as Record<string, string>)[provider] ?? provider;
}
