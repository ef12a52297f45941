import { NavLink } from 'react-router';

export interface TabLink {
  to: string;
  label: string;
  /** Only this exact path (the first tab, whose path is the others' prefix). */
  end?: boolean;
}

/** A page's tabs, each its own URL (back and forward work; a reload keeps the tab). */
export function Tabs({ label, tabs }: { label: string; tabs: TabLink[] }) {
  return (
    <nav className="tabs" aria-label={label}>
      <ul>
        {tabs.map((tab) => (
          <li key={tab.to}>
            <NavLink to={tab.to} end={tab.end} className={({ isActive }) => (isActive ? 'tab tab--active' : 'tab')}>
              {tab.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
