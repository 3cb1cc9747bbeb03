import { Fragment, type ReactNode } from 'react';
import { Link } from '@tanstack/react-router';

/** The breadcrumb trail of a page below the pipeline: Pipeline / ... / the page itself. */
export function Crumbs({ trail }: { trail: ReactNode[] }) {
  return (
    <nav aria-label="Breadcrumb" className="crumbs">
      <Link to="/" search={{}}>
        Pipeline
      </Link>
      {trail.map((item, i) => (
        <Fragment key={i}>
          <span aria-hidden="true"> / </span>
          {item}
        </Fragment>
      ))}
    </nav>
  );
}
