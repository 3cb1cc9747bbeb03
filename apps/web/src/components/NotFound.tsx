import { Link } from '@tanstack/react-router';

export function NotFound() {
  return (
    <section className="panel empty">
      <h1>Page not found</h1>
      <p>
        <Link to="/" search={{}}>
          Back to the pipeline
        </Link>
      </p>
    </section>
  );
}
