import { useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';

import { signOut } from '../api/session';
import { useSession } from '../app/session';

const LINKS = [
  { to: '/', label: 'Catalog', end: true },
  { to: '/collections', label: 'Collections' },
  { to: '/pipelines', label: 'Pipelines' },
  { to: '/sql', label: 'SQL' },
  { to: '/activity', label: 'Activity' },
  { to: '/tokens', label: 'Tokens' },
  { to: '/webhooks', label: 'Webhooks' },
];

/** Every signed-in screen: a skip link, the header with the navigation, the page. */
export function Layout() {
  const { me, isAdmin } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  useEffect(() => {
    setMenuOpen(false);
    // After a navigation the focus goes to the new page (not on the first load).
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [location.pathname]);

  async function leave() {
    await signOut().catch(() => undefined);
    navigate('/sign-in');
  }

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <NavLink to="/" className="header__brand">
          datahub
        </NavLink>
        <button
          type="button"
          className="header__menu button"
          aria-expanded={menuOpen}
          aria-controls="main-navigation"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="main-navigation" aria-label="Main" className={menuOpen ? 'header__nav header__nav--open' : 'header__nav'}>
          <ul>
            {LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.end}>
                  {link.label}
                </NavLink>
              </li>
            ))}
            {isAdmin && (
              <li>
                <NavLink to="/admin">Admin</NavLink>
              </li>
            )}
            <li>
              <NavLink to="/account">{me ? me.name || me.email : 'Account'}</NavLink>
            </li>
            <li>
              <button type="button" className="link-button" onClick={leave}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1} className="page">
        <Outlet />
      </main>
    </>
  );
}
