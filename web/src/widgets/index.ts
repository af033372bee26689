// Every widget of the deck; importing this module defines all their custom elements.
import './attention-steps';
import './positional-encoding';
import './architecture';
import './components';
import './attention-map';
import './multi-head';
import './explorer';
import './four-steps';
import './rnn-gradients';
import './scaling';
import './causal-mask';
