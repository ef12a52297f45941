import { Link } from 'react-router';

import { usePageTitle } from '../../components/usePageTitle';

export function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Go to the catalog</Link>.
      </p>
    </>
  );
}
