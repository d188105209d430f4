Bls.bias_gradJI¸„¿Ÿ
e?þ®Ë>ÐJ–?