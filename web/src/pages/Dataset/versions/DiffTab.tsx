// Being written: replaced by the screen's owner.
export function DiffTab() {
  return null;
}
