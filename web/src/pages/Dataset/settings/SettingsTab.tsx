// Being written: replaced by the screen's owner.
export function SettingsTab() {
  return null;
}
