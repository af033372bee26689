// Every widget of the deck; importing this module defines all their custom elements.
import './attention-steps';
import './positional-encoding';
import './architecture';
import './components';
