/** The signed-in dashboard user, as `POST/GET /session` answers. */
export interface Session {
  readonly email: string;
  readonly csrf_token: string;
}
