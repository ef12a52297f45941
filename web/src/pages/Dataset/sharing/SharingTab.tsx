import { SharingPanel } from '../../../components/sharing/SharingPanel';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';

/** The Sharing tab (managers only: the owner and admins): visibility and grants. */
export function SharingTab() {
  const dataset = useDataset();
  usePageTitle(`Sharing · ${dataset.name}`);
  return (
    <section aria-labelledby="sharing-title">
      <h2 id="sharing-title">Sharing</h2>
      {dataset.capabilities.manage ? (
        <SharingPanel kind="dataset" id={dataset.id} visibility={dataset.visibility} />
      ) : (
        <p className="notice notice--warn">Only the owner of this dataset and admins can change who sees it.</p>
      )}
    </section>
  );
}
