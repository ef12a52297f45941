// Being written: replaced by the screen's owner.
export function VersionsTab() {
  return null;
}
