/** What an API key may do: `admin` sees and manages everything, `user` its own and public things. */
export type Role = 'admin' | 'user';
