// Being written: replaced by the screen's owner.
export function PreviewTab() {
  return null;
}
