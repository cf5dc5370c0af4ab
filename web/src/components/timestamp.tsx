/** A time from the API, shown in the reader's locale with the exact value in a tooltip. */
export function Timestamp(props: { readonly value: string | null; readonly none: string }) {
  if (props.value === null) return <span class="muted">{props.none}</span>;
  const date = new Date(props.value);
  if (Number.isNaN(date.getTime())) return <span>{props.value}</span>;
  return (
    <time dateTime={props.value} title={props.value}>
      {date.toLocaleString()}
    </time>
  );
}
