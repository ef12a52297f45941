// Being written: replaced by the screen's owner.
export function OverviewTab() {
  return null;
}
