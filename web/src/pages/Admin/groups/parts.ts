import type { GroupSource } from '../../../api/gen/types.gen';

export function sourceName(source: GroupSource): string {
  return { local: 'Admins', ldap: 'LDAP', oidc: 'SSO (OIDC)' }[source];
}

export function isGroupsQuery(key: readonly unknown[]): boolean {
  const id = (key[0] as { _id?: string } | undefined)?._id;
  return id === 'listGroups' || id === 'getGroup';
}
