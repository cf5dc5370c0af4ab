/** An error message shown beside the input it is about; the input points at it with aria-describedby. */
export function FieldError({ id, message }: { readonly id: string; readonly message: string | undefined }) {
  if (message === undefined || message === '') return null;
  return (
    <p id={id} class="field-error" role="alert">
      {message}
    </p>
  );
}
