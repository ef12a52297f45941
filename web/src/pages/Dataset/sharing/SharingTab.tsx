// Being written: replaced by the screen's owner.
export function SharingTab() {
  return null;
}
