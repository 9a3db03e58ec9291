import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { readKeyFrom } from './api/http';
import { router } from './router';
import { useSessionStore } from './stores/session';
import './style.css';

const pinia = createPinia();
const session = useSessionStore(pinia);
readKeyFrom(() => session.key);

createApp(App).use(pinia).use(router).mount('#app');
