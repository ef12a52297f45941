// Being written: replaced by the screen's owner.
export function LineageTab() {
  return null;
}
