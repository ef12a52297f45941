// Being written: replaced by the screen's owner.
export function ActivityTab() {
  return null;
}
