Bl3.bias_gradJI¸„¿Ÿ
e?þ®Ë>ÐJ–?